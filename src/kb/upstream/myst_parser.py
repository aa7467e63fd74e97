"""MyST-Parser: where its warnings go, and where it finds comments in a directive's options."""

from __future__ import annotations

import logging


def myst_warning_logger() -> logging.Logger:
    """The logger MyST (and MyST-NB, through it) writes its warnings to, for a filter of kb's
    own (:mod:`kb.markup.headings`).

    MyST has no way to leave one warning out for one document: ``suppress_warnings`` is the
    whole site's, and its ``myst.header`` covers every header warning. Its
    ``create_warning`` logs through Sphinx's ``getLogger(__name__)``, that is the standard
    logger named ``sphinx.`` and its module's name; taken from the function, not spelt out,
    so that a move of the function within MyST moves the name with it.
    """
    from myst_parser.warnings_ import create_warning

    return logging.getLogger(f"sphinx.{create_warning.__module__}")


def option_comment_line(content: list[str]) -> int | None:
    """Where MyST warns "Directive options has # comments" (``myst.directive_comments``) for
    a directive whose lines after its opening are ``content``: the index, in ``content``, of
    the first line of its options with a ``#`` comment; None when there is none.

    MyST reads `` #`` in an option as the start of a comment and leaves it out of the value.
    The options are found as MyST's ``_parse_directive_options`` finds them (a ``---`` block,
    or the ``:key: value`` lines at the top, by its ``is_option_line``) and read with its
    own tokenizer (``options_to_tokens``, which records the comments' lines); neither is
    documented API. Options MyST cannot read are its own warning, not this one.
    """
    from textwrap import dedent

    from myst_parser.parsers.directives import is_option_line
    from myst_parser.parsers.options import TokenizeError, options_to_tokens

    text = "\n".join(content)
    if text.startswith("---"):
        rest = content[1:]
        end = next((i for i, line in enumerate(rest) if line.startswith("---")), len(rest))
        block, first = dedent("\n".join(rest[:end])), 1
    elif text.lstrip().startswith(":"):
        taken = []
        for line in content:
            if not is_option_line(line):
                break
            taken.append(line.lstrip()[1:])
        block, first = "\n".join(taken), 0
    else:
        return None
    try:
        _, state = options_to_tokens(block)
    except TokenizeError:
        return None
    if not state.has_comments:
        return None
    return first + (state.comment_lines[0] if state.comment_lines else 0)
