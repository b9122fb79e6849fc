"""The report's captions (workflow/report/*.rst) render without a docutils error or warning."""
import io
from pathlib import Path

import docutils.core
import pytest

CAPTIONS = sorted((Path(__file__).resolve().parents[1] / "workflow" / "report").glob("*.rst"))


def problems(text):
    """docutils' warnings and errors for ``text`` (level 2 and above), as one string."""
    stream = io.StringIO()
    docutils.core.publish_string(text, writer_name="null",
                                 settings_overrides={"warning_stream": stream, "report_level": 2, "halt_level": 5})
    return stream.getvalue()


@pytest.mark.parametrize("caption", CAPTIONS, ids=lambda path: path.name)
def test_a_caption_renders_cleanly(caption):
    assert problems(caption.read_text()) == ""


def test_the_check_sees_an_undefined_substitution():
    """Positive control: dp-gcd Figure 2's caption as it was, with a bare |w*_j|."""
    assert "Undefined substitution referenced" in problems("histogram of |w*_j| over the coordinates")
