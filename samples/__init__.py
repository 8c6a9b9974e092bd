"""The team's sample problem sets, in the project's own directory format.

stdio/<id>/     stdin/stdout problems (gen.py writes tests/, solutions/ holds ref + wrong ones)
function/<id>/  function-call problems (prompt.py, tests/*.py)
math/           train.jsonl + heldout.jsonl

`python -m samples.build` regenerates every stdio test set; `python -m samples.validate`
runs every reference bare against it.
"""
