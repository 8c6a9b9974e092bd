"""Blob store backends: ``FileBlobStore`` (a directory) and ``S3BlobStore`` (boto3)."""
