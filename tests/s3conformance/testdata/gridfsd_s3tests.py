"""pytest plugin that adapts ceph/s3-tests to gridfsd from outside.

The suite is kept as published (../shared/conformance/s3-tests); this plugin,
loaded with `-p gridfsd_s3tests`, only chooses and records:

- GRIDFSD_S3TESTS_SELECT names a file of test names (one a line, `#` comments):
  only those run; unset, every test outside `fails_on_aws` runs.
- GRIDFSD_S3TESTS_RESULTS names a file the plugin writes one line a test to:
  `<outcome> <area> <name>`, outcome passed/failed/skipped.

Areas group the tests as the docs report them: the feature areas by marker
or name, everything else is "core" (objects, listings, multipart, copy,
ranges, conditionals, bucket operations, authentication).
"""
import os

AREAS = [
    # (area, markers, name fragments); first match wins
    ("cors", set(), ["cors"]),
    ("post_object", set(), ["post_object"]),
    ("lifecycle", {"lifecycle", "lifecycle_expiration", "lifecycle_transition"}, ["lifecycle"]),
    ("versioning", {"versioning", "delete_marker"}, ["versioning", "versioned", "_version"]),
    ("object_lock", {"object_lock"}, ["object_lock", "legal_hold", "retention"]),
    ("encryption", {"encryption", "sse_s3", "bucket_encryption"}, ["encryption", "sse_", "_sse", "kms"]),
    ("policy", {"bucket_policy", "user_policy", "group_policy", "role_policy", "session_policy"}, ["policy"]),
    ("acl", set(), ["acl", "grant", "ownership", "access_bucket", "block_public"]),
    ("tagging", {"tagging"}, ["tagging", "_tags"]),
    ("checksum", {"checksum"}, ["checksum"]),
    ("conditional_write", {"conditional_write"}, []),
    ("logging", {"bucket_logging", "bucket_logging_cleanup"}, ["logging"]),
    ("other_features", {"s3select", "s3website", "sns", "storage_class", "appendobject", "cloud_transition",
                        "cloud_restore", "abac_test", "iam_user", "iam_account", "iam_tenant",
                        "iam_cross_account", "iam_role", "test_of_sts", "webidentity_test"},
     ["website", "torrent", "select", "storage_class", "append", "restore", "bucket_ownership"]),
]


def area(item):
    marks = {m.name for m in item.iter_markers()}
    name = item.name
    for a, ms, frags in AREAS:
        if marks & ms or any(f in name for f in frags):
            return a
    return "core"


def pytest_collection_modifyitems(config, items):
    keep = []
    sel = os.environ.get("GRIDFSD_S3TESTS_SELECT")
    want = None
    if sel:
        with open(sel) as f:
            want = {l.split("#")[0].strip() for l in f} - {""}
    for it in items:
        if want is not None:
            if it.name in want:
                keep.append(it)
        elif not any(m.name == "fails_on_aws" for m in it.iter_markers()):
            keep.append(it)
    deselected = [it for it in items if it not in set(keep)]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
    items[:] = keep
    if want is not None:
        missing = want - {it.name for it in keep}
        if missing:
            raise SystemExit("gridfsd_s3tests: selected tests not in the suite: " + ", ".join(sorted(missing)))
    for it in keep:
        it.user_properties.append(("area", area(it)))


_results = {}
_areas = {}


def pytest_runtest_logreport(report):
    for k, v in report.user_properties:
        if k == "area":
            _areas[report.nodeid] = v
    prev = _results.get(report.nodeid)
    if report.when == "call":
        if prev != "failed":
            _results[report.nodeid] = report.outcome
    elif report.outcome != "passed":
        # a failed setup or teardown fails the test; a skip in setup skips it
        _results[report.nodeid] = "failed" if report.outcome == "failed" else (prev or "skipped")


def pytest_sessionfinish(session, exitstatus):
    out = os.environ.get("GRIDFSD_S3TESTS_RESULTS")
    if not out or hasattr(session.config, "workerinput"):  # xdist workers report to the controller
        return
    with open(out, "w") as f:
        for nodeid, outcome in sorted(_results.items()):
            f.write("%s %s %s\n" % (outcome, _areas.get(nodeid, "core"), nodeid.split("::")[-1]))
