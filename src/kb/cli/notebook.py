"""``kb new --notebook``: a notebook post to start from, as an ``.ipynb`` or a MyST text notebook.

Both carry the same front matter as ``kb new``'s Markdown post (in the notebook's metadata for
an ``.ipynb``), a Python 3 ``kernelspec``, the title as the first markdown cell's heading, and
one empty code cell. Values are written as JSON, which YAML reads as written: a text
notebook's front matter must be JSON-like (a date is quoted), since Jupyter keeps it in the
notebook's metadata.
"""

from __future__ import annotations

import argparse
import json
from datetime import date

FORMATS = ("ipynb", "md")
KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}


def metadata(args: argparse.Namespace, day: date) -> dict:
    """The post's front matter, in ``kb new``'s order."""
    found: dict = {"blogpost": True, "date": day.isoformat(), "category": ", ".join(args.category)}
    found["tags"] = [tag.strip() for tag in args.tag]
    if args.author:
        found["author"] = ", ".join(args.author)
    found["description"] = args.description or ""
    if args.series:
        found["series"] = args.series
    if args.part:
        found["part"] = int(args.part) if args.part.strip().isdigit() else args.part
    if args.external:
        found["external_link"] = args.external
    return found


def guidance(relpath: str, where: str) -> list[str]:
    return [
        "% Write the post in markdown and code cells. The site shows each code cell's stored",
        f"% outputs and never runs it, unless the {where} says `kb_execute: cache`.",
        f"% `description` in the {where} is the excerpt that listings and feeds show (leave it",
        f"% empty and kb check reminds you). Check the post, without a build: kb check {relpath}",
    ]


def render_ipynb(args: argparse.Namespace, day: date, relpath: str) -> str:
    """An nbformat 4.5 notebook, written as Jupyter writes one (one-space indent, sorted keys)."""
    where = "notebook's metadata (Jupyter: Edit → Notebook Metadata)"
    title = [f"# {args.title.strip()}", "", *guidance(relpath, where)]
    notebook = {
        "cells": [
            _cell("markdown", "title", "\n".join(title)),
            _cell("code", "first-code-cell", ""),
        ],
        "metadata": {
            **metadata(args, day),
            "kernelspec": KERNELSPEC,
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _cell(kind: str, cell_id: str, source: str) -> dict:
    cell: dict[str, object] = {
        "cell_type": kind,
        "id": cell_id,
        "metadata": {},
        "source": _lines(source),
    }
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def render_text_notebook(args: argparse.Namespace, day: date, relpath: str) -> str:
    """A MyST text notebook: jupytext's header, the kernel, then the post's front matter."""
    lines = [
        "---",
        "jupytext:",
        "  text_representation:",
        "    extension: .md",
        "    format_name: myst",
        "kernelspec:",
        *(f"  {key}: {value}" for key, value in KERNELSPEC.items()),
        "file_format: mystnb",
        *(
            f"{key}: {json.dumps(value, ensure_ascii=False)}"
            for key, value in metadata(args, day).items()
        ),
        "---",
        "",
        f"# {args.title.strip()}",
        "",
        *guidance(relpath, "front matter"),
        "",
        "```{code-cell} ipython3",
        "",
        "```",
        "",
    ]
    return "\n".join(lines)
