"""MyST-NB's parser, made by kb rather than by Sphinx's registry."""

from __future__ import annotations

from .sphinx import give_parser_its_build


def notebook_parser(env):
    """MyST-NB's Sphinx parser, set up for this build as Sphinx's registry sets up the parsers
    it makes (:func:`kb.upstream.sphinx.give_parser_its_build`: the private ``_config`` and
    ``_env`` of Sphinx's ``Parser``, which MyST-NB's parser reads).

    kb registers no MyST-NB parser with Sphinx: MyST-NB costs a second and more to import, so
    kb's own parser makes this one only when it reads a notebook (:mod:`kb.notebooks.render`).
    """
    from myst_nb.sphinx_ import Parser

    parser = Parser()
    give_parser_its_build(parser, env)
    return parser
