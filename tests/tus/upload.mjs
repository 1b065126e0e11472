// Uploads a file through tus-js-client (npm, Node) to a tus endpoint.
//
// usage: node upload.mjs ENDPOINT FILE OPTIONS_JSON
// OPTIONS_JSON: {"filename", "chunkSize", "headers", "metadata",
//   "parallelUploads" (concatenation), "deferLength" (stream source),
//   "terminate" (delete the upload after creating it with N bytes)}
// Prints {"url", "gridfsId", "gridfsLocation"} as JSON; errors exit 1.
import fs from 'node:fs'
import * as tus from 'tus-js-client'

const [endpoint, path, optsJSON] = process.argv.slice(2)
const opts = JSON.parse(optsJSON)
const size = fs.statSync(path).size
const deferred = !!opts.deferLength
// A Buffer even for a deferred length: tus-js-client 4.3.1 leaves the last
// PATCH of a Node stream source unfinished (the server times it out).
const source = fs.readFileSync(path)

const upload = new tus.Upload(source, {
  endpoint,
  chunkSize: opts.chunkSize ?? (deferred ? 1 << 20 : Infinity),
  headers: opts.headers ?? {},
  metadata: { filename: opts.filename, ...(opts.metadata ?? {}) },
  parallelUploads: opts.parallelUploads ?? 1,
  uploadLengthDeferred: deferred,
  uploadSize: deferred || opts.parallelUploads ? undefined : size,
  retryDelays: [0, 200, 500, 1000],
  removeFingerprintOnSuccess: true,
  onError (err) {
    console.error(String(err))
    process.exit(1)
  },
  onSuccess (payload) {
    const res = payload?.lastResponse
    console.log(JSON.stringify({
      url: upload.url,
      gridfsId: res ? res.getHeader('X-Gridfs-Id') ?? null : null,
      gridfsLocation: res ? res.getHeader('X-Gridfs-Location') ?? null : null
    }))
  }
})

if (opts.terminate) {
  // Create the upload and send its first bytes, then terminate it.
  upload.options.chunkSize = opts.terminate
  upload.options.onChunkComplete = async () => {
    upload.abort()
    await tus.Upload.terminate(upload.url, { headers: opts.headers ?? {} })
    console.log(JSON.stringify({ url: upload.url, terminated: true }))
    process.exit(0)
  }
}
upload.start()
