"""A math completion reaches the judge whole, so its extraction policy decides."""

from rl_loop.rewards import answer_of
from verifier.math import judge


def test_math_completion_is_sent_whole_and_several_boxes_stay_wrong():
    completion = "Two candidates: \\boxed{3} or \\boxed{4}"
    sent = answer_of("math", completion, "python")
    assert sent == completion
    assert judge("4", sent).equivalent is False  # one last box would have been "4"
    assert judge("4", answer_of("math", "So \\boxed{4}.", "python")).equivalent is True
