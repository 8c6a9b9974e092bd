"""The Lambda function's side of the lambda backend (handler + image entrypoint).

This is the one place under ``sandboxes/`` that imports ``problem_store``: the function
is a deployment entry point that wires the runner to the S3 blob store. Nothing else in
``sandboxes`` imports it.
"""
