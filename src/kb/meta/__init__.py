"""What link previews, search engines and lost readers get: Open Graph tags and post images
(:mod:`.previews`), ``sitemap.xml`` (:mod:`.sitemap`), the 404 page (:mod:`.notfound`).
"""

from .notfound import setup_notfound
from .previews import setup_previews
from .sitemap import setup_sitemap

__all__ = ["setup_notfound", "setup_previews", "setup_sitemap"]
