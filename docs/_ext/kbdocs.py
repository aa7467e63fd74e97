"""The configuration reference, generated from the code when the guides are built.

``kb-settings`` lists every ``kb_*`` setting from :class:`kb.config.KbConfig` (its fields are
the settings; the ``#:`` comment above each field says what it does, read with Sphinx's own
source analyser, as autodoc reads it) with its type, default and what a change rebuilds.
``kb-messages`` lists every message of :data:`kb.checks.messages.MESSAGES` under its code,
with the example of :data:`kb.checks.examples.EXAMPLES`: what the source said, what ``kb check``
and the build print, and the fix. Nothing here is a copy: a new setting or message appears in
the reference on the next build, and one without a description or example fails it.
"""

from __future__ import annotations

import textwrap
from dataclasses import MISSING, fields

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.errors import ExtensionError
from sphinx.pycode import ModuleAnalyzer
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

from kb import config
from kb.checks import examples, messages

logger = logging.getLogger(__name__)


def _type_text(annotation: str) -> str:
    """A field's annotation as a fork writes the value in conf.py."""
    return {
        "tuple[str, ...]": "list of str",
        "int": "int",
        "str": "str",
        "bool": "bool",
    }.get(str(annotation), str(annotation))


def _default_text(value) -> str:
    if isinstance(value, tuple):
        value = list(value)
    return repr(value)


def _rebuild_text(name: str) -> str:
    rebuild = config.REBUILD.get(name, "html")
    return {
        "env": "every post is read again",
        "html": "every page is written again",
        "": "nothing is rebuilt (it changes how a build runs, not what it writes)",
    }[rebuild]


def setting_docs() -> dict[str, str]:
    """Each field's ``#:`` comment, by field name."""
    analyzer = ModuleAnalyzer.for_module(config.__name__)
    docs = analyzer.find_attr_docs()
    return {
        attr: " ".join(line.strip() for line in lines).strip()
        for (owner, attr), lines in docs.items()
        if owner == config.KbConfig.__name__
    }


def settings_rst() -> list[str]:
    docs = setting_docs()
    lines: list[str] = []
    for field in fields(config.KbConfig):
        doc = docs.get(field.name)
        if not doc:
            raise ExtensionError(
                f"kb.config.KbConfig.{field.name} has no '#:' comment: say what kb_{field.name} "
                "does in the line above the field"
            )
        default = field.default if field.default is not MISSING else None
        lines += [
            f".. confval:: kb_{field.name}",
            f"   :type: ``{_type_text(field.type)}``",
            f"   :default: ``{_default_text(default)}``",
            "",
            *textwrap.indent(doc, "   ").splitlines(),
            "",
            f"   Changing it: {_rebuild_text(field.name)}.",
            "",
        ]
    return lines


def messages_rst() -> list[str]:
    missing = sorted(set(messages.MESSAGES) - set(examples.EXAMPLES))
    if missing:
        raise ExtensionError(
            f"kb.checks.examples.EXAMPLES has no example for {', '.join(missing)}: add one"
        )
    lines: list[str] = []
    for code in sorted(messages.MESSAGES):
        example = examples.EXAMPLES[code]
        try:
            shown = messages.MESSAGES[code].format(**example.values)
        except (KeyError, IndexError) as error:
            raise ExtensionError(
                f"the example of message {code!r} in kb/checks/examples.py does not fill it: "
                f"add {error} to its values"
            ) from None
        lines += [
            f".. _message-{code.replace('_', '-')}:",
            "",
            f"``{code}``",
            "~" * (len(code) + 4),
            "",
        ]
        if example.source:
            lines += [
                f"The source ({example.where}):",
                "",
                ".. code-block:: text",
                "",
                *textwrap.indent(example.source, "   ").splitlines(),
                "",
            ]
        lines += [
            "What ``kb check`` and the build say:",
            "",
            ".. code-block:: text",
            "",
            *textwrap.indent(f"{example.where}:{example.line}: {shown}", "   ").splitlines(),
            "",
            "The fix:",
            "",
        ]
        if example.fix_source:
            lines += [
                ".. code-block:: text",
                "",
                *textwrap.indent(example.fix_source, "   ").splitlines(),
                "",
            ]
        else:
            lines += [*textwrap.wrap(example.fix, 100), ""]
    return lines


class _Generated(SphinxDirective):
    """reStructuredText made from the code, parsed in place (titles included)."""

    has_content = False

    def lines(self) -> list[str]:
        raise NotImplementedError

    def run(self) -> list[nodes.Node]:
        for module in (config, messages, examples):
            self.env.note_dependency(module.__file__)
        holder = nodes.section()
        holder.document = self.state.document
        try:
            lines = self.lines()
        except ExtensionError as error:  # a setting or message the code does not document
            logger.warning(error.message, location=self.get_location())
            return []
        content = StringList(lines, source=f"<{self.name}>")
        nested_parse_with_titles(self.state, content, holder)
        return holder.children


class KbSettings(_Generated):
    def lines(self) -> list[str]:
        return settings_rst()


class KbMessages(_Generated):
    def lines(self) -> list[str]:
        return messages_rst()


def setup(app):
    app.add_directive("kb-settings", KbSettings)
    app.add_directive("kb-messages", KbMessages)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
