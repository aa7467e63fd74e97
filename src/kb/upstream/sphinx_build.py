"""``sphinx-build`` in steps, for ``kb serve``'s standby (:mod:`kb.cli.buildworker`).

:class:`PreparedBuild` is ``build_main`` in two steps: make the application ahead of the
change, build when the author saves. :func:`build_update` is the incremental build that
follows, step by step, with the environment saved beside the writing.

``Sphinx.build`` (with ``Builder.build_update`` and ``Builder.build``) reads what changed,
pickles the environment into the doctree folder, and only then writes the pages. Pickling
takes its time whatever changed: 0.13 s at 1000 posts, a fifth of a one-post edit's build in
``kb serve``. :func:`build_update` takes the same steps, in the same order, with the same
events and messages, but one: where Sphinx pickles, a copy of the process, forked at that
moment (so it holds the environment exactly as Sphinx would pickle it), pickles it while this
process writes the pages. On two cores the pickling then leaves the time from a save to its
page.

The copy writes a new file and renames it over the old one, so that the file is always a
whole environment (Sphinx writes over it in place). The build waits for it before
``build-finished``: the handlers that record a finished build (:mod:`kb.incremental.freshness`)
find the environment saved, as after Sphinx's own step. A build that fails stops the copy
before Sphinx's rule applies (the saved environment is deleted, so the next build starts
afresh). The copy inherits the build's lock on its folders (:func:`kb.core.output.lock_folders`,
an ``flock`` on a descriptor the copy shares): if the build is killed, the next build waits
until the copy has finished, and then finds the environment of a build stopped after reading,
which is what it repairs after Sphinx's own step too.

Sphinx 9's steps are copied from ``sphinx.application.Sphinx.build`` and
``sphinx.builders.Builder.build_update``/``build``, with the private attributes they read
(``_exception_on_warning``, ``_warncount``, ``_fail_on_warnings``);
``tests/test_upstream.py`` checks that both give the same pages and environment. Its reading
step and its question of which pages are out of date are :mod:`kb.upstream.sphinx_read`'s.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import traceback
from contextlib import nullcontext
from pathlib import Path
from typing import IO, TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:
    from collections.abc import Callable

    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    from .sphinx_read import Questions

    #: Called with the application once a build's documents' pages are written.
    PagesWritten = Callable[[Sphinx], None]

    class Aside(Protocol):
        """What is done with the environment where Sphinx pickles it, while the pages are
        written (:class:`EnvironmentSaver`, or what :func:`build_update` is given)."""

        def stop(self) -> None:
            """The build failed: undo what was begun, and wait for it."""

        def wait(self) -> None:
            """The pages are written: wait for what was begun."""

    #: Called with the environment where Sphinx pickles it.
    PutAside = Callable[[BuildEnvironment], Aside]


class PreparedBuild:
    """``sphinx-build ARGUMENTS`` in two steps (what ``sphinx.cmd.build.build_main`` does,
    through its private helpers): :meth:`prepare` makes the application (reads the
    configuration, sets up the extensions, loads the environment and the builder) while the
    output it logs is held back, and :meth:`run` releases that output and builds.

    ``kb serve``'s warm worker prepares the next build while the author reads the page
    (:mod:`kb.cli.buildworker`). ``app`` is None when making it failed: the caller then builds
    the plain way (``build_main``), which reports that failure in Sphinx's own words.
    """

    def __init__(self, arguments: list[str], environment: BuildEnvironment | None = None) -> None:
        from sphinx.cmd import build as cmd

        parser = cmd.get_parser()
        args = cmd._parse_arguments(parser, arguments)
        args.confdir = cmd._parse_confdir(args.noconfig, args.confdir, args.sourcedir)
        args.doctreedir = cmd._parse_doctreedir(args.doctreedir, args.outputdir)
        cmd._validate_filenames(parser, args.force_all, args.filenames)
        cmd._validate_colour_support(args.color)
        args.status, args.warning, args.error, self._warnfp = cmd._parse_logging(
            parser, args.quiet, args.really_quiet, args.warnfile
        )
        args.confoverrides = cmd._parse_confoverrides(
            parser, args.define, args.htmldefine, args.nitpicky
        )
        self.args = args
        self._held = [
            _HeldStream(s) if s is not None else None for s in (args.status, args.warning)
        ]
        self._contexts = contextlib.ExitStack()
        self._environment = environment
        self.app: Sphinx | None = None

    def prepare(self) -> None:
        """Make the application; its log waits in memory until :meth:`run`."""
        from sphinx.application import Sphinx
        from sphinx.util.docutils import docutils_namespace, patch_docutils

        args = self.args
        self._contexts.enter_context(patch_docutils(args.confdir or args.sourcedir))
        self._contexts.enter_context(docutils_namespace())
        status, warning = (cast("IO[str] | None", stream) for stream in self._held)
        application = Sphinx if self._environment is None else _given(self._environment)
        self._environment = None  # the application holds it now, or it was not made
        try:
            self.app = application(
                srcdir=args.sourcedir,
                confdir=args.confdir,
                outdir=args.outputdir,
                doctreedir=args.doctreedir,
                buildername=args.builder,
                confoverrides=args.confoverrides,
                status=status,
                warning=warning,
                freshenv=args.freshenv,
                warningiserror=args.warningiserror,
                tags=args.tags,
                verbosity=args.verbosity,
                parallel=args.jobs,
                keep_going=False,
                pdb=args.pdb,
                exception_on_warning=args.exception_on_warning,
            )
        except (Exception, KeyboardInterrupt):
            self.app = None

    def run(
        self,
        save_environment_aside: bool = False,
        pages_written: PagesWritten | None = None,
        questions: Questions | None = None,
        environment_aside: PutAside | None = None,
    ) -> int:
        """Release the held log and build; the exit status ``sphinx-build`` would give. With
        ``save_environment_aside`` (an incremental build of the whole site, as ``kb serve``
        runs it), a forked copy of the process saves the environment while the pages are
        written (:mod:`kb.upstream.sphinx_build`), and ``pages_written`` is called once the
        documents' pages are, and ``questions`` (answered ahead) are asked which documents
        changed (see :func:`build_update`); ``environment_aside``, where given, is what is done
        with the environment instead of saving it (see :func:`build_update`)."""
        import sphinx._cli.util.errors

        from .sphinx_build import build_update

        args, app = self.args, self.app
        assert app is not None
        for stream in self._held:
            if stream is not None:
                stream.release()
        aside = save_environment_aside and not args.force_all and not args.filenames
        try:
            with self._contexts:
                if aside:
                    build_update(app, pages_written, questions, environment_aside)
                else:
                    app.build(args.force_all, args.filenames)
                return app.statuscode
        except (Exception, KeyboardInterrupt) as exc:
            sphinx._cli.util.errors.handle_exception(
                exc,
                stderr=args.error,
                use_pdb=args.pdb,
                print_traceback=args.verbosity or args.traceback,
                message_log=app.messagelog,
                extensions=app.extensions.values(),
            )
            return 2
        finally:
            self.close()

    def close(self) -> None:
        """Leave the contexts :meth:`prepare` entered, without building."""
        self._contexts.close()
        if self._warnfp is not None:
            self._warnfp.close()
            self._warnfp = None


def _given(environment: BuildEnvironment) -> type[Sphinx]:
    """Sphinx's application, but for its environment: where Sphinx unpickles the one the last
    build saved, it takes ``environment``, the last build's own, kept in memory by the process
    that ran it (:mod:`kb.cli.buildworker`), as unpickling would have left it."""
    from sphinx.application import Sphinx

    class GivenEnvironment(Sphinx):
        def _init_env(self, freshenv: bool) -> BuildEnvironment:
            if freshenv:
                return super()._init_env(freshenv)
            return _take_over(self, environment)

    return GivenEnvironment


def _take_over(app: Sphinx, environment: BuildEnvironment) -> BuildEnvironment:
    """What ``Sphinx._load_existing_env`` does with the environment it unpickled, with one
    :func:`let_go` left as pickling leaves it; if Sphinx's ``setup`` refuses it, a fresh
    environment, as Sphinx makes when the file cannot be loaded."""
    from sphinx.locale import __
    from sphinx.util import logging

    try:
        environment.setup(app)
    except Exception as err:  # noqa: BLE001  (as Sphinx: a fresh environment instead)
        logging.getLogger(__name__).info(__("failed: %s"), err)
        return app._create_fresh_env()
    app._fresh_env_used = False
    return environment


def let_go(app: Sphinx) -> BuildEnvironment:
    """The environment of ``app``, whose build has ended, left as pickling it would leave it
    (``BuildEnvironment.__getstate__``: no application, domains, events or doctree caches; the
    configuration as ``Config`` pickles itself, without the values it cannot pickle, which
    Sphinx compares with the next build's), and Sphinx's log no longer writing to ``app``'s
    streams, nor ablog's posts (:func:`~kb.upstream.ablog.reset_blog_state`: its ``Blog``
    holds the application in a dict it shares at class level, until the next build's
    ``config-inited``): once the caller drops ``app``, nothing holds it, and the environment
    can be given to the next build's application (:class:`PreparedBuild`)."""
    import logging

    from sphinx.util.logging import NAMESPACE

    from .ablog import reset_blog_state

    environment = app.env
    state = environment.__getstate__()
    state["config"] = pickle.loads(pickle.dumps(state["config"], pickle.HIGHEST_PROTOCOL))
    environment.__dict__.clear()
    environment.__dict__.update(state)
    sphinx_log = logging.getLogger(NAMESPACE)
    for handler in list(sphinx_log.handlers):  # the next application's setup does so too
        sphinx_log.removeHandler(handler)
    reset_blog_state()
    return environment


class _HeldStream:
    """A text stream that keeps what is written until :meth:`release`, then passes it on."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self._held: list[str] | None = []
        self.encoding = getattr(stream, "encoding", None) or "utf-8"

    def write(self, text: str) -> int:
        if self._held is None:
            return self._stream.write(text)
        self._held.append(text)
        return len(text)

    def flush(self) -> None:
        if self._held is None:
            self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def release(self) -> None:
        held, self._held = self._held or [], None
        self._stream.write("".join(held))
        self._stream.flush()


class EnvironmentSaver:
    """A forked copy of this process that pickles ``env`` to ``target`` and exits; where no
    copy can be forked (no memory for one), this process pickles it at once, as Sphinx does."""

    def __init__(self, env: BuildEnvironment, target: Path) -> None:
        self.target = target
        self.partial = target.with_name(target.name + ".saving")
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            self.pid: int | None = os.fork()
        except OSError:
            self.pid = None
            self._write(env)  # raises as Sphinx's own pickling would
            return
        if self.pid == 0:
            self._save(env)  # never returns

    def _write(self, env: BuildEnvironment) -> None:
        try:
            with open(self.partial, "wb") as handle:
                pickle.dump(env, handle, pickle.HIGHEST_PROTOCOL)
            os.replace(self.partial, self.target)
        except BaseException:
            self.partial.unlink(missing_ok=True)
            raise

    def _save(self, env: BuildEnvironment) -> None:
        status = 1
        try:
            import gc

            gc.disable()  # pickling touches every object once; a collection would touch it again
            self._write(env)
            status = 0
        except BaseException:  # noqa: BLE001  (the build reports it: this copy only exits)
            with contextlib.suppress(BaseException):
                traceback.print_exc()
        finally:
            os._exit(status)  # not the build's cleanup, nor its buffered output

    def wait(self) -> None:
        """Return once the environment is saved; raise if it could not be."""
        if self.pid is None:
            return
        _, status = os.waitpid(self.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            self.partial.unlink(missing_ok=True)
            raise OSError(f"could not save the environment to {self.target}")

    def stop(self) -> None:
        """Stop the copy without saving (the build failed), and wait for it."""
        if self.pid is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        self.partial.unlink(missing_ok=True)


def build_update(
    app: Sphinx,
    pages_written: PagesWritten | None = None,
    questions: Questions | None = None,
    environment_aside: PutAside | None = None,
) -> None:
    """``app.build()`` (no ``-a``, no file names: what ``kb serve`` rebuilds), the environment
    saved by a forked copy while the pages are written. ``pages_written(app)`` is called when
    the pages of the documents read or outdated are on disk, before the generated pages, the
    images and the rest of the builder's ``finish``: kb serve shows the edited page then
    (:mod:`kb.incremental.shown`). ``questions``, where given, say which documents there are
    and which changed (:class:`~kb.upstream.sphinx_read.AnsweredAhead`); by default they are
    asked of the files now, as Sphinx asks them.

    ``environment_aside(env)``, where given, is called instead of :class:`EnvironmentSaver`,
    where Sphinx pickles the environment (so that it is given the environment as Sphinx
    would pickle it), and what it returns is stopped or waited for as the saver is: ``kb
    serve``'s standby keeps the environment in memory for the next build instead
    (:mod:`kb.cli.buildworker`), and the saved environment stays the one some build before
    saved. A build that loads that file
    reads again each document changed since, as after any build that did not save it
    (one stopped before its copy saved it); the pages on disk are vouched for by kb's record
    of this build (:mod:`kb.core.journal`), whatever the environment they were made from."""
    from sphinx.application import ENV_PICKLE_FILENAME
    from sphinx.locale import __
    from sphinx.util.build_phase import BuildPhase

    from .sphinx_read import Questions

    questions = questions or Questions()
    builder = app.builder
    builder.phase = BuildPhase.READING
    try:
        builder.compile_update_catalogs()
        outdated = questions.outdated_pages(builder)
        if isinstance(outdated, str):
            _build(app, ["__all__"], outdated, pages_written, questions, environment_aside)
        else:
            to_build = set(outdated)
            summary = __("targets for %d source files that are out of date") % len(to_build)
            _build(app, to_build, summary, pages_written, questions, environment_aside)
        app.events.emit("build-finished", None)
    except Exception as err:
        # As Sphinx: delete the saved environment to force a fresh build next time.
        (Path(app.doctreedir) / ENV_PICKLE_FILENAME).unlink(missing_ok=True)
        app.events.emit("build-finished", err)
        raise
    _report(app)
    builder.cleanup()


def _build(
    app: Sphinx,
    docnames,
    summary: str,
    pages_written: PagesWritten | None,
    questions: Questions,
    environment_aside: PutAside | None,
) -> None:
    """``Builder.build(docnames, summary, method="update")``, saving the environment aside
    (or giving it to ``environment_aside``)."""
    from sphinx._cli.util.colour import bold
    from sphinx.application import ENV_PICKLE_FILENAME
    from sphinx.locale import __
    from sphinx.util import logging
    from sphinx.util.build_phase import BuildPhase
    from sphinx.util.display import progress_message
    from sphinx.util.parallel import SerialTasks, parallel_available

    from .sphinx_read import read

    logger = logging.getLogger("sphinx.builders")
    builder, env = app.builder, app.env
    logger.info(bold(__("building [%s]: ")) + summary, builder.name)
    with nullcontext() if app._exception_on_warning else logging.pending_warnings():
        updated_docnames = set(read(builder, questions))

    doccount = len(updated_docnames)
    logger.info(bold(__("looking for now-outdated files... ")), nonl=True)
    updated_docnames.update(env.check_dependents(app, updated_docnames))
    outdated = len(updated_docnames) - doccount
    if outdated:
        logger.info(__("%d found"), outdated)
    else:
        logger.info(__("none found"))

    saver = None
    if updated_docnames and environment_aside is not None:
        saver = environment_aside(env)
    elif updated_docnames:
        saver = EnvironmentSaver(env, Path(builder.doctreedir) / ENV_PICKLE_FILENAME)
    try:
        if updated_docnames:
            builder.phase = BuildPhase.CONSISTENCY_CHECK
            with progress_message(__("checking consistency")):
                env.check_consistency()
        elif not docnames:
            logger.info(bold(__("no targets are out of date.")))

        builder.phase = BuildPhase.RESOLVING
        if docnames and docnames != ["__all__"]:
            docnames = set(docnames) & env.found_docs
        if parallel_available and app.parallel > 1 and builder.allow_parallel:
            builder.parallel_ok = app.is_parallel_allowed("write")
        else:
            builder.parallel_ok = False
        builder.finish_tasks = SerialTasks()
        builder.write(docnames, updated_docnames, "update")
        # Only where a document's page was written (as Builder.write chooses them): a build
        # that wrote none has shown nothing yet, and the pages it makes next (genindex) ask
        # for the stylesheets' checksums as they are on disk then, which kb serve's early
        # reload would have changed (furo's code colours, written before furo writes them).
        if pages_written is not None and (updated_docnames or docnames):
            pages_written(app)
        builder.finish()
        builder.finish_tasks.join()
    except BaseException:
        if saver is not None:
            saver.stop()
        raise
    if saver is not None:
        saver.wait()


#: ``Sphinx.build``'s closing lines, by the number of warnings (none, one, more) and how the
#: build ended, in Sphinx's own words (its message catalogs translate them).
_CLOSING_LINES = {
    ("none", "succeeded"): "build succeeded.",
    ("none", "problems"): "build finished with problems.",
    ("one", "succeeded"): "build succeeded, 1 warning.",
    ("one", "problems"): "build finished with problems, 1 warning.",
    ("one", "errors"): "build finished with problems, 1 warning (with warnings treated as errors).",
    ("more", "succeeded"): "build succeeded, %s warnings.",
    ("more", "problems"): "build finished with problems, %s warnings.",
    ("more", "errors"): (
        "build finished with problems, %s warnings (with warnings treated as errors)."
    ),
}


def _report(app: Sphinx) -> None:
    """The end of ``Sphinx.build``: the status code (1 for warnings that are errors) and the
    closing line."""
    from sphinx._cli.util.colour import bold
    from sphinx.locale import __
    from sphinx.util import logging

    logger = logging.getLogger("sphinx.application")
    warnings = app._warncount
    if warnings and app._fail_on_warnings:
        app.statuscode = 1
        ending = "errors"
    else:
        ending = "problems" if app.statuscode != 0 else "succeeded"
    count = "none" if warnings == 0 else "one" if warnings == 1 else "more"
    line = bold(__(_CLOSING_LINES[count, ending]))
    if count == "more":
        logger.info(line, warnings)
    else:
        logger.info(line)
    if app.statuscode == 0 and app.builder.epilog:
        from sphinx.util.osutil import relpath

        logger.info("")
        logger.info(
            app.builder.epilog, {"outdir": relpath(app.outdir), "project": app.config.project}
        )
