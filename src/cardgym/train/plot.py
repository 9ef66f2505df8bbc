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


def _font(size):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)  # a scalable font (Pillow >= 10.1 with FreeType)
    except (TypeError, OSError, ImportError):  # pragma: no cover - old Pillow or no FreeType
        return ImageFont.load_default()


def _pillow(path, series, title, xlabel, ylabel, ylim, hline, Image, ImageDraw):
    """Layout: title centred on top, y label turned along the y axis, x label centred under the tick
    labels, legend inside the plot's top-left corner; every text measured, none overlapping."""
    font, small = _font(14), _font(12)
    W, H = 760, 440
    L, R, T, B = 78, 24, 40, 58  # plot area margins: y label + ticks / right / title / ticks + x label
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

    for yv in _ticks(y0, y1):
        _, yy = px(x0, yv)
        d.line([L, yy, W - R, yy], fill=(225, 225, 225))
        label = _fmt(yv)
        d.text((L - 6 - d.textlength(label, font=small), yy), label, fill="black", font=small, anchor="lm")
    for xv in _ticks(x0, x1):
        xx, _ = px(xv, y0)
        d.text((xx, H - B + 6), _fmt(xv), fill="black", font=small, anchor="mt")
    d.rectangle([L, T, W - R, H - B], outline="black")
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
    # legend: a white box in the top-left corner of the plot
    if series:
        rows = list(series)
        lw = max(d.textlength(t, font=small) for t in rows) + 34
        d.rectangle([L + 8, T + 8, L + 8 + lw, T + 12 + 18 * len(rows)], fill="white", outline=(200, 200, 200))
        for k, label in enumerate(rows):
            c = COLORS[k % len(COLORS)]
            yk = T + 12 + 18 * k
            d.rectangle([L + 14, yk + 3, L + 28, yk + 13], fill=c)
            d.text((L + 34, yk + 8), label, fill="black", font=small, anchor="lm")
    if title:
        d.text((W // 2, 12), title, fill="black", font=font, anchor="mt")
    if xlabel:
        d.text(((L + W - R) // 2, H - 8), xlabel, fill="black", font=font, anchor="mb")
    if ylabel:  # drawn on its own image, turned 90 degrees, pasted left of the tick labels
        tw = int(d.textlength(ylabel, font=font)) + 4
        lab = Image.new("RGB", (tw, 20), "white")
        ImageDraw.Draw(lab).text((2, 10), ylabel, fill="black", font=font, anchor="lm")
        lab = lab.rotate(90, expand=True)
        img.paste(lab, (6, max(0, (T + H - B) // 2 - tw // 2)))
    img.save(path)
    return path
