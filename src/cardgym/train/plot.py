"""Learning-curve PNGs: matplotlib when it is installed, else a small Pillow line plot (no extra need)."""

from __future__ import annotations

from pathlib import Path

COLORS = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189), (140, 86, 75)]


def line_plot(path, series: dict, title: str = "", xlabel: str = "", ylabel: str = "", ylim=None,
              hline=None) -> Path | None:
    """Write ``series`` (``{label: (xs, ys)}``) as a PNG. Returns the path, or None without a plotter."""
    path = Path(path)
    series = {k: (list(x), list(y)) for k, (x, y) in series.items() if len(x)}
    if not series:
        return None
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        plt = None
    if plt is not None:
        fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
        for label, (x, y) in series.items():
            ax.plot(x, y, label=label, marker="." if len(x) < 40 else None)
        if hline is not None:
            ax.axhline(hline, color="gray", ls="--", lw=0.8)
        if ylim:
            ax.set_ylim(*ylim)
        ax.set_title(title), ax.set_xlabel(xlabel), ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(path, metadata={"Software": None})
        plt.close(fig)
        return path
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        return None
    return _pillow(path, series, title, xlabel, ylabel, ylim, hline, Image, ImageDraw)


def _ticks(lo, hi, n=5):
    if hi <= lo:
        hi = lo + 1
    return [lo + (hi - lo) * k / (n - 1) for k in range(n)]


def _fmt(v):
    a = abs(v)
    if a >= 1e6:
        return f"{v / 1e6:.1f}M"
    if a >= 1e3:
        return f"{v / 1e3:.0f}k"
    if a >= 10 or v == int(v):
        return f"{v:.0f}"
    return f"{v:.2f}"


def _pillow(path, series, title, xlabel, ylabel, ylim, hline, Image, ImageDraw):
    W, H, L, R, T, B = 700, 400, 60, 20, 30, 45
    img = Image.new("RGB", (W, H), "white")
    d = ImageDraw.Draw(img)
    xs = [v for x, _ in series.values() for v in x]
    ys = [v for _, y in series.values() for v in y]
    x0, x1 = min(xs), max(xs)
    if x1 == x0:
        x1 = x0 + 1
    y0, y1 = ylim if ylim else (min(ys), max(ys))
    if y1 == y0:
        y1 = y0 + 1

    def px(x, y):
        return (L + (x - x0) / (x1 - x0) * (W - L - R), H - B - (y - y0) / (y1 - y0) * (H - T - B))

    d.rectangle([L, T, W - R, H - B], outline="black")
    for yv in _ticks(y0, y1):
        _, yy = px(x0, yv)
        d.line([L, yy, W - R, yy], fill=(225, 225, 225))
        d.text((4, yy - 6), _fmt(yv), fill="black")
    for xv in _ticks(x0, x1):
        xx, _ = px(xv, y0)
        d.text((xx - 12, H - B + 4), _fmt(xv), fill="black")
    if hline is not None and y0 <= hline <= y1:
        _, yy = px(x0, hline)
        d.line([L, yy, W - R, yy], fill=(150, 150, 150))
    for k, (label, (x, y)) in enumerate(series.items()):
        c = COLORS[k % len(COLORS)]
        pts = [px(a, b) for a, b in zip(x, y)]
        if len(pts) > 1:
            d.line(pts, fill=c, width=2)
        for p in pts if len(pts) < 40 else []:
            d.ellipse([p[0] - 2, p[1] - 2, p[0] + 2, p[1] + 2], fill=c)
        d.rectangle([L + 10, T + 8 + 14 * k, L + 22, T + 16 + 14 * k], fill=c)
        d.text((L + 26, T + 5 + 14 * k), label, fill="black")
    d.text((L, 8), title, fill="black")
    d.text((W // 2 - 30, H - 18), xlabel, fill="black")
    d.text((4, T - 22), ylabel, fill="black")
    img.save(path)
    return path
