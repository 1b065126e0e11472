"""PyMongo's GridFS side of tests/interop_python_test.go.

Usage:
  gridfs_interop.py read  URI DB BUCKET   print every file of the bucket as read through GridFSBucket
  gridfs_interop.py write URI DB BUCKET   upload the files that stdin describes, print their ids

Input and output are documents ({"files": [...]}, {"ids": [...]}) in
canonical Extended JSON, so BSON types (int32 or int64,
ObjectId, dates) survive the trip to Go unchanged.
"""

import hashlib
import sys

import gridfs
import pymongo
from bson import json_util
from bson.codec_options import CodecOptions
from bson.son import SON

CANONICAL = json_util.CANONICAL_JSON_OPTIONS


def bucket(uri, db, name):
    client = pymongo.MongoClient(uri, serverSelectionTimeoutMS=10000)
    # SON keeps the order of metadata's fields, which Go compares byte for byte.
    database = client.get_database(db, codec_options=CodecOptions(document_class=SON))
    return client, gridfs.GridFSBucket(database, bucket_name=name)


def sha256(b):
    return hashlib.sha256(b).hexdigest()


def read(fs):
    out = []
    for f in fs.find({}, sort=[("_id", 1)]):
        whole = fs.open_download_stream(f._id).read()
        by_name = fs.open_download_stream_by_name(f.filename).read()
        # A read from the middle, through seek: GridOut fetches chunks by n.
        lo, hi = f.length // 3, f.length - f.length // 3
        g = fs.open_download_stream(f._id)
        g.seek(lo)
        middle = g.read(hi - lo)
        out.append(SON([
            ("_id", f._id),
            ("filename", f.filename),
            ("length", f.length),
            ("chunkSize", f.chunk_size),
            ("uploadDate", f.upload_date),
            ("metadata", f.metadata),
            ("sha256", sha256(whole)),
            ("sha256ByName", sha256(by_name)),
            ("sha256Middle", sha256(middle)),
        ]))
    return out


def write(fs, specs):
    ids = []
    for s in specs:
        with open(s["path"], "rb") as src:
            kwargs = {"chunk_size_bytes": s["chunkSize"]}
            if s.get("metadata") is not None:
                kwargs["metadata"] = s["metadata"]
            if "_id" in s:
                fs.upload_from_stream_with_id(s["_id"], s["filename"], src, **kwargs)
                ids.append(s["_id"])
            else:
                ids.append(fs.upload_from_stream(s["filename"], src, **kwargs))
    return ids


def main():
    cmd, uri, db, name = sys.argv[1:5]
    client, fs = bucket(uri, db, name)
    try:
        if cmd == "read":
            result = SON([("files", read(fs))])
        elif cmd == "write":
            specs = json_util.loads(sys.stdin.read(), json_options=CANONICAL)["files"]
            result = SON([("ids", write(fs, specs))])
        else:
            sys.exit("unknown command " + cmd)
        print(json_util.dumps(result, json_options=CANONICAL))
    finally:
        client.close()


if __name__ == "__main__":
    main()
