"""Tests of the real site: what they expect comes from the posts, conf.py and
``expectations.toml`` (see ``sitefacts.py``). This file puts ``sitefacts`` on the path."""
