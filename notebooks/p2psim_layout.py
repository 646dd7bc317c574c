"""Does a figure print cleanly? Every text box it draws (tick labels, axis labels, titles, legend texts, colour
bar labels, annotations), measured by matplotlib itself, must stay on the canvas and clear of every other one.

    problems = p2psim_layout.layout_problems(fig)   # [] when clean; else one sentence per problem

Only the texts the renderer really draws count: matplotlib keeps tick labels for ticks outside the view and
empty or hidden texts, which print nothing."""
import itertools

import matplotlib.text

# Boxes may touch or graze: a text's box includes its font's descent, so neighbours that look apart on paper
# can share a pixel or two of it. More than this (in points, either direction) is an overprint.
OVERLAP_PT = 1.0
MARGIN_PT = 0.5


def drawn_texts(fig):
    """Every Text artist the renderer draws when the figure is drawn, with its box in display pixels."""
    drawn = []
    original = matplotlib.text.Text.draw

    def recording_draw(text, renderer):
        original(text, renderer)
        if text.get_visible() and text.get_text().strip():
            drawn.append(text)

    matplotlib.text.Text.draw = recording_draw
    try:
        fig.canvas.draw()
    finally:
        matplotlib.text.Text.draw = original
    renderer = fig.canvas.get_renderer()
    unique = list(dict.fromkeys(drawn))  # a text drawn twice (e.g. by a legend) is one box
    return [(text, text.get_window_extent(renderer)) for text in unique]


def _describe(text):
    words = " ".join(text.get_text().split())
    return repr(words if len(words) <= 40 else words[:37] + "...")


def layout_problems(fig):
    """Sentences naming each text that overprints another or leaves the canvas (an empty list: clean)."""
    pixels_per_pt = fig.dpi / 72.0
    overlap, margin = OVERLAP_PT * pixels_per_pt, MARGIN_PT * pixels_per_pt
    width, height = fig.canvas.get_width_height()
    texts = drawn_texts(fig)
    problems = []
    for text, box in texts:
        if box.x0 < -margin or box.y0 < -margin or box.x1 > width + margin or box.y1 > height + margin:
            problems.append(f"{_describe(text)} leaves the canvas ({box.x0:.0f}..{box.x1:.0f} x "
                            f"{box.y0:.0f}..{box.y1:.0f} px on {width} x {height})")
    for (a, box_a), (b, box_b) in itertools.combinations(texts, 2):
        dx = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
        dy = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
        if dx > overlap and dy > overlap:
            problems.append(f"{_describe(a)} overprints {_describe(b)} ({dx:.0f} x {dy:.0f} px)")
    return problems
