// The search page (kb/search.html): queries the Pagefind bundle built with the site.
// It fetches only what a query needs: Pagefind's index chunks for the query's words, then one
// fragment per result shown. Everything comes from the site itself; nothing from elsewhere.

const PAGE_SIZE = 10;
// Dates read as on the rest of the site ("3 September 2025"). Spelled out by hand: setting
// up Intl.DateTimeFormat costs tens of milliseconds before the first results.
const MONTHS = [
  "January", "February", "March", "April", "May", "June",
  "July", "August", "September", "October", "November", "December",
];

// Loaded from the page's <head> as an async module, so that Pagefind starts downloading
// while the rest of the page is still being parsed; the page's elements are looked up later.
const bundleUrl = new URL(
  document.querySelector('meta[name="kb-search-bundle"]').content,
  document.baseURI,
);
const siteUrl = new URL("../", bundleUrl);

let section, input, form, filterBox, categoryList, statusLine, resultList, moreButton;

// Pagefind's first request is for its entry file (which languages, which index files). The
// build wrote that file into this page too: answer that one request from the page, and
// save a round trip before anything else can start (about 90 ms here). The wrapper also
// notes when Pagefind has read its metadata (see watchIndexLoading), then steps aside.
function watchPagefindRequests(metadataRead) {
  const inline = document.getElementById("kb-search-entry");
  const entryPath = new URL("pagefind-entry.json", bundleUrl).pathname;
  const fetchFromNetwork = window.fetch;
  let waitingFor = inline === null ? 1 : 2;
  const done = () => {
    if (--waitingFor === 0) window.fetch = fetchFromNetwork;
  };
  window.fetch = function (input, init) {
    const url = new URL(typeof input === "string" ? input : input.url, document.baseURI);
    if (inline !== null && url.pathname === entryPath) {
      done();
      const headers = { "Content-Type": "application/json" };
      return Promise.resolve(new Response(inline.textContent, { headers }));
    }
    const response = fetchFromNetwork.call(this, input, init);
    if (!url.pathname.endsWith(".pf_meta")) return response;
    done();
    return response.then((meta) => {
      const read = meta.arrayBuffer;
      meta.arrayBuffer = () => read.call(meta).finally(metadataRead);
      return meta;
    }, (error) => {
      metadataRead();
      throw error;
    });
  };
}

let pagefindPromise = null;
let filtersPromise = null;
let latestQuery = 0; // results of an older query never overwrite a newer one
let shownResults = [];
let shownCount = 0;

function loadPagefind() {
  if (pagefindPromise === null) {
    watchIndexLoading();
    pagefindPromise = import(new URL("pagefind.js", bundleUrl).href).then(async (pagefind) => {
      await pagefind.options({
        // Result URLs are relative to the site's root, wherever it is served (Read the Docs
        // serves a version under /en/latest/).
        baseUrl: siteUrl.pathname,
        excerptLength: 24,
        // One query on a blog's index takes milliseconds: a web worker would only add its
        // own download and start-up before the first results.
        noWorker: true,
      });
      await pagefind.init(); // starts loading the index
      warmTextBreaking(); // while the index loads
      await Promise.race([indexLoaded, delay(INDEX_WAIT_LIMIT_MS)]);
      return pagefind;
    });
  }
  return pagefindPromise;
}

// A search asked for while Pagefind is still loading its index waits for it by checking
// again every 50 ms: the first results would come up to 50 ms late. The index is ready once
// Pagefind has read its metadata and instantiated its WebAssembly: the first search starts
// then. Should a later Pagefind load them some other way, it starts after
// INDEX_WAIT_LIMIT_MS all the same.
const INDEX_WAIT_LIMIT_MS = 400;
let indexLoaded = null;

function watchIndexLoading() {
  const metadata = new Promise((resolve) => watchPagefindRequests(resolve));
  const webAssembly = new Promise((resolve) => {
    const instantiate = WebAssembly.instantiate;
    WebAssembly.instantiate = function (...args) {
      WebAssembly.instantiate = instantiate;
      const instantiated = instantiate.apply(this, args);
      instantiated.then(resolve, resolve);
      return instantiated;
    };
  });
  // A task, not a microtask: Pagefind finishes loading in the microtasks that follow. An
  // urgent one where the browser can say so: while the page loads, plain timers wait
  // behind parsing and layout.
  indexLoaded = Promise.all([metadata, webAssembly]).then(nextUrgentTask);
}

function nextUrgentTask() {
  if (globalThis.scheduler && typeof scheduler.postTask === "function") {
    return scheduler.postTask(() => {}, { priority: "user-blocking" });
  }
  return delay(0);
}

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function selectedCategories() {
  return [...categoryList.querySelectorAll("input:checked")].map((box) => box.value);
}

function saveState(query, categories) {
  const params = new URLSearchParams();
  if (query) params.set("q", query);
  for (const name of categories) params.append("category", name);
  const search = params.toString();
  history.replaceState(null, "", search ? `?${search}` : location.pathname);
}

function renderCategories(counts, selected) {
  const names = Object.keys(counts).sort((a, b) => a.localeCompare(b));
  filterBox.hidden = names.length === 0;
  const boxes = names.map((name) => {
    const label = document.createElement("label");
    label.className = "kb-search-category";
    const box = document.createElement("input");
    box.type = "checkbox";
    box.name = "category";
    box.value = name;
    box.checked = selected.includes(name);
    label.append(box, ` ${name}`);
    if (counts[name] !== null) {
      const count = document.createElement("span");
      count.className = "kb-count";
      count.textContent = ` (${counts[name]})`;
      label.append(count);
    }
    return label;
  });
  categoryList.replaceChildren(...boxes);
}

function formatDate(isoDay) {
  const [year, month, day] = isoDay.split("-").map(Number);
  return `${day} ${MONTHS[month - 1]} ${year}`;
}

function resultItem(data) {
  const item = document.createElement("li");
  item.className = "kb-search-result";
  const heading = document.createElement("h2");
  heading.className = "kb-search-result-title";
  const link = document.createElement("a");
  link.href = data.url;
  link.textContent = data.meta.title || data.url;
  heading.append(link);
  item.append(heading);

  const details = [];
  if (data.meta.date) {
    const time = document.createElement("time");
    time.dateTime = data.meta.date;
    time.textContent = formatDate(data.meta.date);
    details.push(time);
  }
  const categories = (data.filters && data.filters.category) || [];
  if (categories.length) {
    const span = document.createElement("span");
    span.className = "kb-search-result-category";
    span.textContent = categories.join(", ");
    details.push(span);
  }
  if (details.length) {
    const meta = document.createElement("p");
    meta.className = "kb-search-result-meta";
    details.forEach((node, i) => meta.append(...(i ? [" · ", node] : [node])));
    item.append(meta);
  }
  const excerpt = document.createElement("p");
  excerpt.className = "kb-search-result-excerpt";
  // Pagefind escapes the page text and adds only <mark> around the matched words.
  excerpt.innerHTML = data.excerpt;
  item.append(excerpt);
  return item;
}

async function showMore(queryId) {
  const slice = shownResults.slice(shownCount, shownCount + PAGE_SIZE);
  shownCount += slice.length;
  // Show each result as soon as it and those above it have arrived, so nothing moves under
  // the reader's pointer. The first few fragments are fetched first and the rest once the
  // top result is on screen: ten requests at once would all arrive later.
  const pending = slice.slice(0, FIRST_FETCHES).map(fragmentOf);
  for (let i = 0; i < slice.length; i++) {
    if (i === 1) pending.push(...slice.slice(FIRST_FETCHES).map(fragmentOf));
    const item = resultItem(await pending[i]);
    if (queryId !== latestQuery) return;
    resultList.append(item);
  }
  moreButton.hidden = shownCount >= shownResults.length;
}

const FIRST_FETCHES = 3;

function fragmentOf(result) {
  return result.kbData || result.data();
}

function categoryFilter(categories) {
  return categories.length ? { category: { any: categories } } : {};
}

// The query in the page's address is searched as soon as this script runs, while the page
// is still being parsed, and the fragments of its first results are requested at once: by
// the time the page can show results, they are usually here.
const initialParams = new URLSearchParams(location.search);
const initialQuery = (initialParams.get("q") || "").trim();
const initialCategories = initialParams.getAll("category");
let earlySearch = null;

function startEarlySearch() {
  if (!initialQuery && !initialCategories.length) return;
  earlySearch = loadPagefind()
    .then((pagefind) =>
      pagefind.search(initialQuery || null, { filters: categoryFilter(initialCategories) }),
    )
    .then((search) => {
      for (const result of search ? search.results.slice(0, FIRST_FETCHES) : []) {
        result.kbData = result.data();
      }
      return search;
    })
    .catch(() => null); // the search proper reports it, once the page can show it
}

function takeEarlySearch(query, categories) {
  const early = earlySearch;
  earlySearch = null;
  const same =
    query === initialQuery && categories.join("\n") === initialCategories.join("\n");
  return same ? early : null;
}

async function runSearch() {
  const queryId = ++latestQuery;
  const query = input.value.trim();
  const categories = selectedCategories();
  saveState(query, categories);
  if (!query && !categories.length) {
    resultList.replaceChildren();
    moreButton.hidden = true;
    statusLine.textContent = "";
    return;
  }
  let pagefind;
  try {
    pagefind = await loadPagefind();
  } catch (error) {
    statusLine.textContent =
      "Search could not load its index. It needs the site served over HTTP " +
      "(make serve), not opened from files.";
    throw error;
  }
  const filters = categoryFilter(categories);
  const early = takeEarlySearch(query, categories);
  const search = (early && (await early)) || (await pagefind.search(query || null, { filters }));
  if (queryId !== latestQuery || search === null) return;

  if (search.totalFilters && search.totalFilters.category) {
    renderCategories(search.totalFilters.category, categories);
  }
  shownResults = search.results;
  shownCount = 0;
  resultList.replaceChildren();
  await showMore(queryId);
  if (queryId !== latestQuery) return;
  const count = search.results.length;
  statusLine.textContent =
    count === 0
      ? `No results for “${query}”.`
      : `${count} result${count === 1 ? "" : "s"}${query ? ` for “${query}”` : ""}.`;
  // Lets benchmarks and tests measure the time to the first results.
  performance.mark("kb-search-results");
  if (filtersPromise === null) {
    // Pagefind counts results per category only once its filters are loaded: load them
    // after the first results are on screen, then count again (the index is in memory).
    filtersPromise = pagefind.filters();
    await filtersPromise;
    const counted = await pagefind.search(query || null, { filters });
    if (queryId === latestQuery && counted !== null) {
      renderCategories(counted.totalFilters.category || {}, categories);
    }
  }
}

function start() {
  section = document.getElementById("kb-search");
  input = section.querySelector(".kb-search-input");
  form = section.querySelector(".kb-search-form");
  filterBox = section.querySelector(".kb-search-filter");
  categoryList = section.querySelector(".kb-search-categories");
  statusLine = section.querySelector(".kb-search-status");
  resultList = section.querySelector(".kb-search-results");
  moreButton = section.querySelector(".kb-search-more");

  const params = new URLSearchParams(location.search);
  const query = params.get("q") || "";
  input.value = query;
  for (const box of document.querySelectorAll(".sidebar-search")) box.value = query;
  renderCategories(
    // Counts come with the first results; until then the boxes keep the URL's choice.
    Object.fromEntries(params.getAll("category").map((name) => [name, null])),
    params.getAll("category"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    runSearch();
  });
  let typing = null;
  input.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(runSearch, 150);
  });
  categoryList.addEventListener("change", () => runSearch());
  moreButton.addEventListener("click", () => showMore(latestQuery));
  // `/` focuses the search box, as on every other page (there, Sphinx's doctools does it).
  document.addEventListener("keydown", (event) => {
    const typing = event.target.closest("input, textarea, select, [contenteditable]");
    if (event.key !== "/" || typing || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    input.focus();
    input.select();
  });
  if (query || params.has("category")) {
    runSearch();
  } else {
    // Nothing to search yet: show the categories, and warm the index while the user types.
    loadPagefind().then((pagefind) => {
      filtersPromise = pagefind.filters();
      filtersPromise.then((all) => {
        if (latestQuery === 0) renderCategories(all.category || {}, []);
      });
    });
  }
}

// Pagefind splits each query with Intl.Segmenter, and the first one a page creates loads the
// browser's text-breaking data (20–30 ms here): create one while the index loads, instead of
// on the way to the first results.
function warmTextBreaking() {
  if (typeof Intl.Segmenter === "function") {
    new Intl.Segmenter(document.documentElement.lang || "en", { granularity: "grapheme" });
  }
}

startEarlySearch();
// The page's search section ends with a script that says it has been parsed: start there,
// without waiting for the rest of the page (the footer, and the theme's scripts).
let started = false;
function startOnce() {
  if (started || !document.getElementById("kb-search")) return;
  started = true;
  start();
}
if (window.kbSearchParsed || document.readyState !== "loading") {
  startOnce();
} else {
  document.addEventListener("kb-search-parsed", startOnce);
  document.addEventListener("DOMContentLoaded", startOnce);
}
