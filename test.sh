#!/usr/bin/env bash
# The project's test command (README "Test", called by .ci/run): on a machine
# with only Go it installs the Debian packages the suites need, checks gofmt
# and go vet, then runs every test. Extra arguments go to `go test`.
#
# What needs which package: tests/browser drives headless Chromium (fonts for
# stable screenshots); tests/interop_python_test.go uses PyMongo's gridfs;
# the S3 real-client tests use awscli, rclone, s3cmd and boto3; TestReadme runs
# the README's walkthroughs with curl and awscli; the WebDAV tests run litmus,
# cadaver and rclone's webdav backend; tests/tus runs tus-js-client (npm,
# installed into tests/tus/node_modules from its package-lock.json) under Node
# and Debian's tuspy; tests/s3conformance runs ceph's s3-tests
# (beside the repository in shared/conformance, or $GRIDFSD_S3TESTS_DIR) with Debian's
# python3 and pytest (xdist for parallel workers).
set -euo pipefail
cd "$(dirname "$0")"

have_py() { python3 -c "import $1" 2>/dev/null || /usr/bin/python3 -c "import $1" 2>/dev/null; }

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
have_py gridfs || missing+=(python3-pymongo python3-gridfs)
[ -x /usr/bin/aws ] || missing+=(awscli)
command -v rclone >/dev/null 2>&1 || missing+=(rclone)
command -v s3cmd >/dev/null 2>&1 || missing+=(s3cmd)
have_py boto3 || missing+=(python3-boto3)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v litmus >/dev/null 2>&1 || missing+=(litmus)
command -v cadaver >/dev/null 2>&1 || missing+=(cadaver)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
/usr/bin/python3 -c "import tusclient" 2>/dev/null || missing+=(python3-tuspy)
# ceph s3-tests (tests/s3conformance) run on Debian's own python3.
for m in pytest:python3-pytest xdist:python3-pytest-xdist pytest_timeout:python3-pytest-timeout boto3:python3-boto3 \
  munch:python3-munch isodate:python3-isodate pytz:python3-tz dateutil:python3-dateutil requests:python3-requests \
  lxml:python3-lxml gevent:python3-gevent httplib2:python3-httplib2 yaml:python3-yaml; do
  /usr/bin/python3 -c "import ${m%%:*}" 2>/dev/null || missing+=("${m#*:}")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "test.sh: installing ${missing[*]} (apt-get)"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -d tests/tus/node_modules/tus-js-client ]; then
  (cd tests/tus && npm ci --no-audit --no-fund --loglevel=error)
fi

go version
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.git/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"
  echo "$unformatted"
  exit 1
fi
go vet ./...
# The conformance suites (tests/s3conformance) take minutes on a busy machine:
# more than go test's default ten per package.
go test -timeout 30m "$@" ./...
