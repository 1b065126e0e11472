package s3

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/binary"
	"encoding/xml"
	"fmt"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/minio/sha256-simd"
	"github.com/zeebo/xxh3"
)

// Checksums: the x-amz-checksum-* of an upload, given in a header, a
// trailer, or only named (x-amz-sdk-checksum-algorithm: computed here), are
// checked (chunked.go), stored with the object (buckets.FieldS3Checksum) and
// returned: in the PutObject, UploadPart and CompleteMultipartUpload
// replies, and by GetObject and HeadObject when asked with
// x-amz-checksum-mode: ENABLED. A multipart upload's checksum is COMPOSITE
// (the checksum of its parts' checksums, "-<parts>") or, for the CRCs when
// asked, FULL_OBJECT, combined from the parts' CRCs without reading them.

// crc64NVME is the CRC-64/NVME table (reflected polynomial), the
// x-amz-checksum-crc64nvme algorithm.
var crc64NVME = crc64.MakeTable(crc64NVMEPoly)

const (
	crc32IEEEPoly   = 0xedb88320
	crc32CPoly      = 0x82f63b78
	crc64NVMEPoly   = 0x9a6c9329ac4bc9b5
	checksumFull    = "FULL_OBJECT"
	checksumComp    = "COMPOSITE"
	checksumHdrPref = "x-amz-checksum-"
)

// checksumAlgorithms are S3's checksum algorithms, by their name in
// x-amz-checksum-<name>.
var checksumAlgorithms = map[string]func() hash.Hash{
	"crc32":     func() hash.Hash { return crc32.NewIEEE() },
	"crc32c":    func() hash.Hash { return crc32.New(crc32.MakeTable(crc32.Castagnoli)) },
	"crc64nvme": func() hash.Hash { return crc64.New(crc64NVME) },
	"sha1":      sha1.New,
	"sha256":    sha256.New,
	"md5":       md5.New,
	"sha512":    sha512.New,
	"xxhash64":  func() hash.Hash { return xxhash.New() },
	"xxhash3":   func() hash.Hash { return xxh3.New() },
	"xxhash128": func() hash.Hash { return xxh3.New128() },
}

// crcPolys are the algorithms whose checksums combine (FULL_OBJECT of a
// multipart upload) and their reflected polynomials and widths.
var crcPolys = map[string]struct {
	poly uint64
	bits int
}{"crc32": {crc32IEEEPoly, 32}, "crc32c": {crc32CPoly, 32}, "crc64nvme": {crc64NVMEPoly, 64}}

// newChecksum returns the hash behind an x-amz-checksum-<name> header; nil
// for an unknown name.
func newChecksum(name string) hash.Hash {
	alg, ok := strings.CutPrefix(strings.ToLower(name), checksumHdrPref)
	if !ok {
		return nil
	}
	if f := checksumAlgorithms[alg]; f != nil {
		return f()
	}
	return nil
}

// contentChecksum is the checksum an upload asked for: its algorithm (lower
// case), the value the client gave if it gave one in a header, and the
// hash computed while the content streams.
type contentChecksum struct {
	alg  string
	h    hash.Hash
	kind string // FULL_OBJECT or COMPOSITE, for multipart uploads
}

// requestChecksum reads which checksum an upload asks for: an
// x-amz-checksum-<alg> header, an X-Amz-Trailer naming one, or
// x-amz-sdk-checksum-algorithm / x-amz-checksum-algorithm. Unknown
// algorithms and several different checksums are refused (400); nil when
// none is asked for.
func requestChecksum(h http.Header) (*contentChecksum, error) {
	var algs []string
	for k := range h {
		lk := strings.ToLower(k)
		alg, ok := strings.CutPrefix(lk, checksumHdrPref)
		if !ok || alg == "algorithm" || alg == "type" || alg == "mode" {
			continue
		}
		if checksumAlgorithms[alg] == nil {
			return nil, errorf(ErrInvalidRequest, "%s is not a checksum S3 knows", lk)
		}
		algs = append(algs, alg)
	}
	if t := strings.ToLower(strings.TrimSpace(h.Get("X-Amz-Trailer"))); strings.HasPrefix(t, checksumHdrPref) {
		alg := strings.TrimPrefix(t, checksumHdrPref)
		if checksumAlgorithms[alg] == nil {
			return nil, errorf(ErrInvalidRequest, "%s is not a checksum S3 knows", t)
		}
		algs = append(algs, alg)
	}
	for _, k := range []string{"X-Amz-Sdk-Checksum-Algorithm", "X-Amz-Checksum-Algorithm"} {
		if v := strings.ToLower(h.Get(k)); v != "" && len(algs) == 0 {
			if checksumAlgorithms[v] == nil {
				return nil, errorf(ErrInvalidRequest, "%s %q is not a checksum algorithm S3 knows", k, v)
			}
			algs = append(algs, v)
		}
	}
	if len(algs) == 0 {
		return nil, nil
	}
	sort.Strings(algs)
	if algs[0] != algs[len(algs)-1] {
		return nil, errorf(ErrInvalidRequest, "Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.")
	}
	c := &contentChecksum{alg: algs[0], h: checksumAlgorithms[algs[0]](), kind: checksumFull}
	switch t := strings.ToUpper(h.Get("X-Amz-Checksum-Type")); t {
	case "", checksumFull:
	case checksumComp:
		c.kind = checksumComp
	default:
		return nil, errorf(ErrInvalidRequest, "x-amz-checksum-type must be FULL_OBJECT or COMPOSITE")
	}
	return c, nil
}

// reader returns r with the content also fed to the checksum.
func (c *contentChecksum) reader(r io.Reader) io.Reader {
	if c == nil {
		return r
	}
	return io.TeeReader(r, c.h)
}

func (c *contentChecksum) value() string { return base64.StdEncoding.EncodeToString(c.h.Sum(nil)) }

// stored is the checksum as the files document keeps it.
func (c *contentChecksum) stored() buckets.S3Checksum {
	return buckets.S3Checksum{Algorithm: strings.ToUpper(c.alg), Value: c.value(), Type: checksumFull}
}

// setChecksumHeaders describes a stored checksum in response headers.
func setChecksumHeaders(h http.Header, c *buckets.S3Checksum) {
	if c == nil {
		return
	}
	h.Set(checksumHdrPref+strings.ToLower(c.Algorithm), c.Value)
	h.Set("x-amz-checksum-type", c.Type)
}

// checksumRequested reports whether a GetObject or HeadObject asks for the
// stored checksum.
func checksumRequested(h http.Header) bool {
	return strings.EqualFold(h.Get("X-Amz-Checksum-Mode"), "ENABLED")
}

// xmlElems are the Checksum<ALG> elements of an XML reply.
type xmlElem struct {
	XMLName xml.Name
	Value   string `xml:",chardata"`
}

func checksumXML(c *buckets.S3Checksum) []xmlElem {
	if c == nil {
		return nil
	}
	return []xmlElem{{XMLName: xml.Name{Local: "Checksum" + c.Algorithm}, Value: c.Value}, {XMLName: xml.Name{Local: "ChecksumType"}, Value: c.Type}}
}

// partChecksum is what a part keeps of its checksum.
type partChecksum struct {
	Algorithm string `bson:"algorithm"`
	Value     string `bson:"value"`
	Size      int64  `bson:"size"`
}

// multipartChecksum is what CreateMultipartUpload asked for.
type multipartChecksum struct {
	Algorithm string `bson:"algorithm"` // lower case
	Type      string `bson:"type"`
}

// combineChecksum makes the checksum of a multipart upload from its parts'
// (in order): COMPOSITE, the checksum of the parts' raw checksums with
// "-<parts>", or FULL_OBJECT, the CRC of the whole content combined from
// the parts' CRCs and sizes.
func combineChecksum(mc multipartChecksum, parts []partChecksum) (*buckets.S3Checksum, error) {
	alg := mc.Algorithm
	newHash := checksumAlgorithms[alg]
	if newHash == nil || len(parts) == 0 {
		return nil, nil
	}
	raws := make([][]byte, len(parts))
	for i, p := range parts {
		if p.Algorithm != alg {
			return nil, errorf(ErrInvalidPart, "part %d has no %s checksum", i+1, strings.ToUpper(alg))
		}
		raw, err := base64.StdEncoding.DecodeString(p.Value)
		if err != nil {
			return nil, errorf(ErrInvalidPart, "part %d has a malformed checksum", i+1)
		}
		raws[i] = raw
	}
	if mc.Type == checksumFull {
		cp, ok := crcPolys[alg]
		if !ok {
			return nil, errorf(ErrInvalidRequest, "FULL_OBJECT checksums are only for CRC32, CRC32C and CRC64NVME")
		}
		var crc uint64
		for i, raw := range raws {
			v := beUint(raw)
			if i == 0 {
				crc = v
				continue
			}
			crc = crcCombine(cp.poly, cp.bits, crc, v, parts[i].Size)
		}
		out := make([]byte, cp.bits/8)
		if cp.bits == 32 {
			binary.BigEndian.PutUint32(out, uint32(crc))
		} else {
			binary.BigEndian.PutUint64(out, crc)
		}
		return &buckets.S3Checksum{Algorithm: strings.ToUpper(alg), Value: base64.StdEncoding.EncodeToString(out), Type: checksumFull}, nil
	}
	h := newHash()
	for _, raw := range raws {
		h.Write(raw)
	}
	return &buckets.S3Checksum{Algorithm: strings.ToUpper(alg), Value: fmt.Sprintf("%s-%d", base64.StdEncoding.EncodeToString(h.Sum(nil)), len(parts)),
		Type: checksumComp}, nil
}

func beUint(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

// crcCombine returns the CRC of A followed by B from crcA, crcB and B's
// length, for a reflected CRC of the given polynomial and width (zlib's
// crc32_combine, generalised to 64 bits): crcA is advanced over lenB zero
// bytes by squaring a GF(2) operator matrix, then xored with crcB.
func crcCombine(poly uint64, bits int, crcA, crcB uint64, lenB int64) uint64 {
	if lenB <= 0 {
		return crcA
	}
	times := func(mat []uint64, vec uint64) uint64 {
		var sum uint64
		for i := 0; vec != 0; i, vec = i+1, vec>>1 {
			if vec&1 != 0 {
				sum ^= mat[i]
			}
		}
		return sum
	}
	square := func(sq, mat []uint64) {
		for n := 0; n < bits; n++ {
			sq[n] = times(mat, mat[n])
		}
	}
	odd, even := make([]uint64, bits), make([]uint64, bits)
	odd[0] = poly // the operator for one zero bit
	row := uint64(1)
	for n := 1; n < bits; n++ {
		odd[n] = row
		row <<= 1
	}
	square(even, odd) // two zero bits
	square(odd, even) // four zero bits
	for {
		square(even, odd) // first pass: one zero byte
		if lenB&1 != 0 {
			crcA = times(even, crcA)
		}
		lenB >>= 1
		if lenB == 0 {
			break
		}
		square(odd, even)
		if lenB&1 != 0 {
			crcA = times(odd, crcA)
		}
		lenB >>= 1
		if lenB == 0 {
			break
		}
	}
	return crcA ^ crcB
}

// partChecksumsOf reads what the parts of upload id kept of their
// checksums, by part number.
func partChecksumsOf(fields map[int]bson.RawValue) map[int]partChecksum {
	out := make(map[int]partChecksum, len(fields))
	for n, v := range fields {
		var pc partChecksum
		if v.Unmarshal(&pc) == nil {
			out[n] = pc
		}
	}
	return out
}

// copyChecksum is the checksum a copy computes of its content: the
// algorithm the request names, else the source's, else CRC64NVME, which S3
// gives every copy that names none (a copy is one part, so its checksum is
// always FULL_OBJECT).
func copyChecksum(h http.Header, src *buckets.File) (*contentChecksum, error) {
	alg := strings.ToLower(h.Get("X-Amz-Checksum-Algorithm"))
	if alg == "" {
		alg = "crc64nvme"
		if c := src.Checksum(); c != nil {
			alg = strings.ToLower(c.Algorithm)
		}
	}
	newHash := checksumAlgorithms[alg]
	if newHash == nil {
		return nil, errorf(ErrInvalidRequest, "x-amz-checksum-algorithm %q is not a checksum algorithm S3 knows", alg)
	}
	return &contentChecksum{alg: alg, h: newHash(), kind: checksumFull}, nil
}

// multipartChecksumOf reads the checksum a CreateMultipartUpload asks for:
// COMPOSITE unless FULL_OBJECT is asked (CRCs only) or the algorithm is
// CRC64NVME, which is always FULL_OBJECT.
func multipartChecksumOf(h http.Header) (*multipartChecksum, error) {
	c, err := requestChecksum(h)
	if c == nil || err != nil {
		return nil, err
	}
	mc := &multipartChecksum{Algorithm: c.alg, Type: checksumComp}
	if strings.EqualFold(h.Get("X-Amz-Checksum-Type"), checksumFull) || c.alg == "crc64nvme" {
		if _, ok := crcPolys[c.alg]; !ok {
			return nil, errorf(ErrInvalidRequest, "FULL_OBJECT checksums are only for CRC32, CRC32C and CRC64NVME")
		}
		mc.Type = checksumFull
	}
	return mc, nil
}

// completedChecksum is the checksum of a multipart upload about to be
// completed from parts, when it was started with one.
func (s *Server) completedChecksum(ctx context.Context, b *buckets.Bucket, id string, parts []buckets.CompletedPart) (*buckets.S3Checksum, error) {
	raw, err := b.MultipartField(ctx, id, "checksum")
	if err != nil || raw.Type == 0 {
		return nil, err
	}
	var mc multipartChecksum
	if err := raw.Unmarshal(&mc); err != nil {
		return nil, err
	}
	fields, err := b.PartFields(ctx, id, "checksum")
	if err != nil {
		return nil, err
	}
	have := partChecksumsOf(fields)
	list := make([]partChecksum, len(parts))
	for i, p := range parts {
		list[i] = have[p.Number]
	}
	return combineChecksum(mc, list)
}
