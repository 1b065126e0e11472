"""Uploads a file through tuspy (Debian's python3-tuspy) to a tus endpoint.

usage: tuspy_upload.py ENDPOINT FILE OPTIONS_JSON
OPTIONS_JSON: {"filename": ..., "chunk_size": N, "headers": {...},
               "url": upload URL to resume instead of creating one}
Prints {"url": ..., "offset": ...} as JSON.
"""
import json
import sys

from tusclient import client

endpoint, path, opts = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
c = client.TusClient(endpoint, headers=opts.get("headers", {}))
kwargs = {"chunk_size": opts.get("chunk_size", 1 << 62), "upload_checksum": True}
if opts.get("url"):
    kwargs["url"] = opts["url"]
else:
    kwargs["metadata"] = {"filename": opts["filename"]}
    kwargs["metadata"].update(opts.get("metadata", {}))
up = c.uploader(path, **kwargs)
up.upload()
print(json.dumps({"url": up.url, "offset": up.offset}))
