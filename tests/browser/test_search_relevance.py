"""Relevance of the site's search: each query names the post that must rank in the top 3.

Typed into the real search page of the real site in Chromium, so the whole chain is tested:
what the build marks as searchable, Pagefind's index and tokenizer, and our page's script.
Queries are what a reader of these posts would type: kernel code names with dots and
underscores, format and architecture names, hyphenated terms and phrases.
"""

from __future__ import annotations

from urllib.parse import quote, urlparse

import pytest
from playwright.sync_api import expect

TOP = 3

RELEVANCE = [
    # Technical words from the issue: code names, formats, architectures.
    ("wgmma.mma_async", "posts/2025/cutlass-wgmma-hopper"),
    ("cp.async.bulk", "posts/2025/cutlass-gemm-pipelining"),
    ("FP8", "posts/2025/deepseek-r1-fp8-training"),
    ("NVFP4", "posts/2025/nvfp4-gemm-sm120"),
    ("SM120", "posts/2025/nvfp4-gemm-sm120"),
    ("head dimension 64", "posts/2026/fa4-backward-head-dim-64"),
    ("Stream-K", "posts/2025/cutlass-persistent-kernels-stream-k"),
    ("TMEM", "posts/2026/fa4-backward-head-dim-64"),
    ("MIG", "posts/2025/mig-vgpu-sharing"),
    # Other terms of art, one or two words.
    ("tcgen05.mma", "posts/2026/flashattention-4"),
    ("IOMMU", "posts/2025/proxmox-gpu-passthrough"),
    ("VFIO passthrough", "posts/2025/proxmox-gpu-passthrough"),
    ("time-sliced vGPU", "posts/2025/mig-vgpu-sharing"),
    ("epilogue visitor tree", "posts/2025/cutlass-epilogue-visitor-trees"),
    ("wave quantization", "posts/2025/cutlass-persistent-kernels-stream-k"),
    ("Cluster Launch Control", "posts/2026/cluster-launch-control"),
    ("mbarrier warp specialization", "posts/2025/cutlass-gemm-pipelining"),
    ("warpgroup", "posts/2025/cutlass-wgmma-hopper"),
    ("fine-grained scaling", "posts/2025/deepseek-r1-fp8-training"),
    ("query head packing GQA", "posts/2025/fa3-int8-inference"),
    ("INT8", "posts/2025/fa3-int8-inference"),
    ("ping-pong decode", "posts/2026/fa4-decode-sp-ping-pong"),
    ("KV cache", "posts/2026/fa4-decode-sp-ping-pong"),
    ("exponential", "posts/2026/flashattention-4"),
    ("1237 TFLOP/s", "posts/2026/fa4-backward-head-dim-64"),
    ("Proxmox VE 8.2", "posts/2025/proxmox-gpu-passthrough"),
]


def result_docnames(page, site_url: str, query: str) -> list[str]:
    """Search from the search page's URL; the docnames of the results, best first."""
    page.goto(f"{site_url}search.html?q={quote(query)}")
    status = page.locator(".kb-search-status")
    expect(status).to_contain_text("result", timeout=10_000)
    site_path = urlparse(site_url).path
    names = []
    for href in page.locator(".kb-search-result-title a").evaluate_all(
        "links => links.map(a => a.href)"
    ):
        path = urlparse(href).path
        assert path.startswith(site_path) and path.endswith(".html"), href
        names.append(path[len(site_path) : -len(".html")])
    return names


@pytest.mark.parametrize(("query", "docname"), RELEVANCE, ids=[q for q, _ in RELEVANCE])
def test_post_ranks_in_top_three(page, site_url, offsite, query, docname):
    names = result_docnames(page, site_url, query)
    assert docname in names[:TOP], f"{query!r}: top {TOP} were {names[:TOP]}"
    assert offsite == []
    assert page.console_errors == []
