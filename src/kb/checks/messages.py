"""Every message the post checks print, in one place: what is wrong, then what to write.

The messages are the product of ``kb check`` and of the build's front-matter warnings; keeping
them together makes them easy to review, and the tests assert them word for word.

Each key is the message's stable code. The guides' message catalogue
(``docs/reference/messages.rst``) is generated from this table, with one example per code from
:mod:`kb.checks.examples`: a new message needs its example there, or ``make docs`` fails and
says which.
"""

from __future__ import annotations

MESSAGES = {
    # Reading the file
    "cannot_read": "cannot read this file ({error})",
    "not_nfc": "this file name is not in Unicode NFC form (an accented letter is written as a "
    "letter and an accent): Sphinx looks for the NFC name and never reads this file; rename it, "
    "typing the accented letters again",
    "not_utf8": "this file is not UTF-8 text (byte {byte} on line {line} is not UTF-8): save it "
    "as UTF-8 (in most editors: Save with Encoding, UTF-8)",
    "no_front_matter": "no front matter: a post starts with a line `---`, then `blogpost: true`, "
    "`date: YYYY-MM-DD` and the other keys, then `---` (kb new writes one)",
    "no_front_matter_rst": "no post fields: an rst post starts with a field list, "
    "`:blogpost: true`, `:date: YYYY-MM-DD` and the other keys, one per line, before its title "
    "(or a `.. post:: YYYY-MM-DD` directive with them as options)",
    "key_not_name": "a front-matter key is a list or a mapping: write each key as a plain "
    "name, one `key: value` per line",
    "unclosed": "the front matter is never closed: add a line `---` after its last key",
    "bad_yaml": "the front matter is not valid YAML ({problem}): write one `key: value` per line, "
    'and quote a value that contains a colon, e.g. `description: "Part 2: the mainloop"`',
    "yaml_tab": "a tab in the front matter, which YAML as MyST reads it does not accept: replace "
    "the tab with spaces",
    "not_mapping": "the front matter must be `key: value` lines",
    "yaml_deep": "the front matter nests a value more than {most} levels deep, which no post "
    "needs and which the build cannot read: write `key: value` lines, with lists of a level "
    "or two",
    "yaml_alias": "`{key}` repeats another value with a YAML alias (`*name`), which the build "
    "refuses to expand (a few aliases can make a value billions of items long): write the value "
    "out in full",
    "twice": "`{key}` is given twice (lines {first} and {line}); YAML keeps only the last: "
    "delete one",
    # The body
    "no_title": "no title: add a `# Title` heading after the front matter; without one ablog "
    "silently leaves the post out",
    "section_post": "a second `post` directive in the same section: ablog posts a section on "
    "its own only when the directive stands in it: put a heading above the directive (`## "
    "Title` in Markdown, an underlined title in rst), or move the section to a file of its own",
    "section_post_nested": "a `post` directive inside another block (a note, a list item, a "
    "quote, a tab): ablog posts a section only from a directive that stands in the section "
    "itself, so this one would be left as text: move it out of the block, right below the "
    "section's heading",
    "section_post_key": "`{key}` belongs to the file's post (its page), not to a section "
    "posted on its own: move it to the file's first `post` directive or its front matter",
    "excerpt_not_count": "excerpt {shown} is not a number: ablog's `excerpt` is how many "
    "paragraphs the excerpt takes (`excerpt: 2`); for an excerpt of your own words write "
    "`description: ...`",
    "image_not_count": "image {shown} is not a number: ablog's `image` is which picture of the "
    "post its excerpt shows (`image: 1` for the first); for the post's card image write "
    "`og:image: {shown}`",
    "no_excerpt": "no excerpt: add `description: ...` (one or two sentences) to the front matter, "
    "or a paragraph after the title; listings and feeds show it",
    # Dates
    "no_date": "undated: a post without a date is a draft (as in ablog), kept off the site and "
    "previewed by kb serve --drafts; add a line `date: YYYY-MM-DD` to publish it",
    "empty_date": "{key} is empty: write it as YYYY-MM-DD, e.g. `{key}: 2025-03-14`",
    "not_a_day": "{key} {shown} is not a real day ({reason}): write a date that exists, "
    "e.g. `{key}: 2025-03-14`",
    "zone": "{key} {shown} has a time zone, which crashes ablog: dates are UTC and carry no "
    "zone, write `{key}: {day}`",
    "option_comment": "MyST reads ` #` in a `{{post}}` option as the start of a comment and "
    "leaves the rest of the line out of the value: quote the value, e.g. "
    '`:title: "Why #1 matters"`, or remove the comment',
    "option_in_date": 'docutils reads "{text}" as part of the date of `.. post::`, not as an '
    "option: indent the directive's options as much as its content",
    "not_a_date": '{key} "{shown}" is not a date with a day, month and year: write it as '
    "YYYY-MM-DD, e.g. `{key}: 2025-03-14`",
    "not_a_time": "{key} {shown} is not a real time of day ({reason}): hours go from 0 to 23, "
    "minutes and seconds from 0 to 59; write e.g. `{key}: {day} 09:30`, or only the day",
    "updated_early": "updated {shown} is before the post's date {day}: write the day of the "
    "last real change, on or after {day}, or remove the line",
    "updated_future": "updated {shown} is after today ({today}): the site ignores it until then, "
    "and the post keeps its last real date; write the day of the last change",
    "scheduled": "scheduled: dated {day}, after today ({today}); it stays off the site until then",
    # Categories and authors: comma strings for ablog
    "yaml_list": "`{key}` is a YAML list, which ablog turns into one bogus {key} named {shown}: "
    "write a comma-separated string, `{key}: {names}`",
    "empty_names": "`{key}` is empty or not text: write `{key}: NAME` or remove the line",
    "unknown_category": 'unknown category "{name}"{hint}; allowed are {allowed} '
    "(kb_categories in conf.py)",
    "unknown_author": 'unknown author "{name}"{hint}; known authors are {allowed} '
    "(keys of blog_authors in conf.py)",
    # Tags
    "tags_not_list": "`tags` must be a list: write `tags: [gemm, hopper]` (or `tags: []` for none)",
    "tag_empty": "tag {position} is empty: remove the extra comma, or write the tag",
    "tag_value": 'tag {position} is read by YAML as {shown}, not as a name: quote it, e.g. `"yes"`',
    "tag_nested": "tag {position} is a list or mapping, not a name: write each tag as plain text, "
    "e.g. `tags: [gemm, hopper]`",
    "typo": 'unknown key "{key}": did you mean "{guess}"? ablog ignores keys it does not know',
    "tag_marks": 'tag "{tag}" would be split or changed by ablog (a comma, a quote or bracket at '
    "its ends, or, in a YAML list, a quote or non-ASCII letter): write it plainly, or write the "
    "tags as one comma-separated string",
    "tag_no_slug": 'tag "{tag}" has no letters or digits, so its page would have no name: '
    "spell it out (e.g. `cpp` for C++)",
    "series_no_slug": 'series "{series}" has no letters or digits, so its page would have no '
    "name: spell it out, e.g. `series: CUTLASS GEMM tutorial`",
    # Other keys
    "external_link": 'external_link "{shown}" is not an http(s) URL: write the full address, '
    "e.g. `external_link: https://example.org/article`",
    "external_spaces": 'external_link "{shown}" has spaces around the address, which would go '
    "into the feeds: remove the spaces, `external_link: {stripped}`",
    # Redirects: ablog writes a page at each old address
    "redirect_not_text": "`redirect` must be the old address as text, several separated by "
    "commas: write `redirect: posts/2025/old-slug`",
    "redirect_empty": "`redirect` is empty: write the post's old address, e.g. "
    "`redirect: posts/2025/old-slug`, or remove the line",
    "redirect_bad": 'redirect "{name}" {reason}: write the old address from the site root, '
    "without .html, e.g. `redirect: {instead}`",
    "redirect_taken": 'redirect "{name}" is the address of {what}: a redirect page there would '
    'replace it; remove "{name}" from `redirect`',
    "redirect_built": 'redirect "{name}" is an address the build writes itself ({what}): '
    'remove "{name}" from `redirect`',
    "redirect_self": 'redirect "{name}" is this post\'s own address: its page would refresh to '
    'itself forever; remove "{name}" from `redirect`',
    "redirect_twice": 'redirect "{name}" is also a redirect of {where}: one old address can lead '
    'to one post only; remove "{name}" from one of them',
    # A notebook's stored outputs (kb.checks.outputs)
    "nb_output_dropped": "{cell}: the {mime_type} form of an output is dropped ({reason}): pages "
    "run no notebook scripts and load nothing from other hosts{others}. Clear the output in "
    "Jupyter, or tag the cell remove-output",
    # The site's old addresses (redirects.toml, kb_old_addresses): a page written at each
    "old_addresses_unreadable": "the old addresses cannot be read ({reason}): write one "
    '`[redirects]` table of "old path" = "new path" pairs, e.g. '
    '`"/category/cuda/" = "/blog/category/cuda.html"`',
    "old_address_bad": 'old address "{old}" {reason}: write it from the site root as the old '
    'site linked it, e.g. `"/category/cuda/"` or `"/2013/03/post.html"`',
    "old_address_target_bad": 'old address "{old}" leads to "{new}", which is not a path of this '
    'site from its root ending in .html or /: write e.g. `"{old}" = "/blog/category/cuda.html"`',
    "old_address_taken": 'old address "{old}" is a page of this site: a redirect page there would '
    "replace it; remove the line",
    "old_address_unknown": 'old address "{old}" leads to "{new}", which this site does not have: '
    "write the address of one of its pages (an archive is /blog/category/NAME.html), or remove "
    "the line",
    "empty_description": "`description` is empty: write one or two sentences for listings and "
    "feeds, or remove the line to use the first paragraph",
    "description_not_text": '`description` must be text: write `description: "One or two '
    'sentences."`',
    "blogpost": "`blogpost: {shown}` still makes this a post (ablog only checks that the key "
    "exists): write `blogpost: true`, or move the file out of the posts folder",
    "nocomments": "`nocomments` crashes ablog 0.11 (it accepts no value), and this site has no "
    "comments: remove the line",
    "series_not_name": "`series` must be one name: write `series: CUTLASS GEMM tutorial`",
    "bad_part": "part {shown} is not a positive whole number: write `part: 1`, `part: 2`, ... "
    "or `part: supplement`",
    "part_alone": "`part` without a series: add `series: NAME` or remove the line",
    # Across posts
    "slug_taken": 'the slug "{slug}" is taken by {other}: ablog gives both posts one label, so '
    "references to one reach the other; rename this file",
    "tag_slug": 'tag "{tag}" and tag "{other}" ({where}) both get the page {page}, so one '
    'overwrites the other: write "{other}" if they mean the same, or rename this one',
    "same_title": 'the title "{title}" is also the title of {where}: readers cannot tell the two '
    "apart; make this one distinct",
    "same_part": 'part {part} of series "{series}" is also {where}: give each part its own number',
    "series_slug": 'series "{series}" and series "{other}" ({where}) both get the page {page}, '
    'so they become one series: write "{other}" if they mean the same, or rename this one',
    "unicode_name": "this file name differs from {other} only in how its accented letters are "
    "written (Unicode NFD, not NFC): Sphinx reads only {other}, and on macOS the two are one "
    "file; delete this one, or rename it",
    "draft_link": "links to {shown}, a draft dated {day}: it is not on the site until then, so "
    "the link would be broken; add the link once that post is out, or date this post later",
    "undated_link": "links to {shown}, an undated draft: it is not on the site until it has a "
    "date, so the link would be broken; add the link once that post is out",
    "missing_link": "links to {shown}, which does not exist{hint}: fix the path; a path starting "
    "with / starts at the site root",
    # Pages and the glossary (checks/pages.py, checks/glossary.py, core/finding.py)
    "page_no_title": "no title: a page starts with a `# Title` heading (after its front matter, "
    "if it has one); the navigation and search show it",
    "unknown_term": "{{term}}`{term}` names a term no glossary defines{hint}: add it to the "
    "glossary (pages/glossary.md), or link a term it has",
    "ignored_file": "{path} is not part of the site: the build reads only {included} "
    "(include_patterns in conf.py); move it into pages/ to publish it, or add it to "
    "exclude_patterns if it is not meant to be a page",
    # Notebooks (checks/notebook.py)
    "nb_not_json": "this notebook is not valid JSON ({problem}, column {column}): an .ipynb is "
    "JSON written by Jupyter; restore the file from version control, or open and save it in "
    "Jupyter if Jupyter can still open it",
    "nb_not_notebook": "this .ipynb is JSON but not a notebook ({what}): a notebook is an object "
    'with "cells", "metadata", "nbformat" and "nbformat_minor"; open and save it in Jupyter',
    "nb_version": "this notebook is nbformat {version}, and MyST-NB reads nbformat 4: open it in "
    "Jupyter and save it, which upgrades it",
    "nb_cell": "cell {cell} is not a valid notebook cell ({what}): open and save the notebook "
    "in Jupyter, or fix the cell",
    "nb_output": "output {output} of cell {cell} is not a valid notebook output ({what}): clear "
    "the cell's outputs in Jupyter and run it again, or fix the output",
    "nb_no_id": "cell {cell} has no valid `id`, which nbformat 4.5 requires ({what}): open and "
    "save the notebook in Jupyter, which adds one",
    "nb_no_title": "no title: start the notebook's first markdown cell with a `# Title` heading; "
    "without one ablog silently leaves the post out",
    "nb_unquoted": "{key} holds a YAML date inside a list or mapping, which a notebook "
    "cannot hold (Jupyter and MyST-NB keep front matter as JSON, which has no dates): quote "
    'each date in it, as in `["2026-11-30"]`',
    "kb_execute": 'kb_execute "{shown}" is not a way to run a notebook: write `kb_execute: cache` '
    "(run it once and reuse the outputs until its code changes), `kb_execute: force` (run it "
    "at every build that reads it), or remove the line to show the stored outputs",
    "kb_execute_kernel": "kb_execute runs the notebook, which needs a `kernelspec` (name, "
    "display_name, language): add one to the {where}",
    "kb_execute_markdown": "kb_execute only runs notebooks, and this is a Markdown post: make it "
    "a text notebook (add `file_format: mystnb` and a `kernelspec`) or remove the line",
    "nb_own_settings": "`{key}` sets how this notebook is run or rendered, which only the site "
    "decides (a notebook never runs unless it says `kb_execute`): remove `{key}` from the "
    "{where}; to run the notebook, write `kb_execute: cache`",
    "nb_too_deep": "this notebook's JSON is nested more than {most} levels deep, which no "
    "notebook Jupyter writes holds and MyST-NB cannot read: restore the file from version "
    "control, or remove the deeply nested value",
    # The source files themselves (checks/sourcefiles.py)
    "source_link_out": "this post is a symbolic link to a file outside the repository, which is "
    "never read or published: put the file itself here instead of the link",
    "source_link_loop": "this post is a symbolic link that leads to itself (a loop): replace the "
    "link with the file",
    "source_not_regular": "this post is not an ordinary file but {what}, and is never read: put "
    "an ordinary file here",
    "same_page": "this file and {other} are the same page (one name, two suffixes), and only "
    "{other} is read: rename this file, or delete the one you do not want",
    "source_too_large": "this post is larger than kb_max_file_bytes ({limit}) and is never read: "
    "split it, or raise kb_max_file_bytes in conf.py",
    "folder_link_out": "this folder is a symbolic link that leads outside the repository, and "
    "nothing under it is read: put the folder itself here instead of the link",
    "folder_link_loop": "this folder is a symbolic link to a folder that holds it (a loop), "
    "which would be walked forever, and nothing under it is read: remove the link",
    # Files a post names (checks/namedfiles.py, core/paths.py): {place} is the directive, role
    # or field (`image:`, `include:`, `csv-table: :file:`), {reason} and {advice} the rule's
    "path_refused": "{place} {path} {reason}; {advice}",
    # Headings (checks/postbody.py)
    "heading_start": "headings start at `{marks}` (H{level}), not `#`: the title of a post or "
    "page is its `#` heading, and MyST warns at every `{marks}` until there is one; write the "
    "first heading as `# Title` and raise the others {levels} (`{deeper}` becomes `##`)",
}


def say(kind: str, **values) -> str:
    return MESSAGES[kind].format(**values)
