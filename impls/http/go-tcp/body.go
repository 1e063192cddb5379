package main

// Request bodies (RFC 9112 §6-§7): framed by Content-Length or chunked,
// read only when a handler asks, after 100 Continue when the client waits
// for one, and never beyond the 1 MiB limit (SPEC §3.5).

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

const maxBodyBytes = 1 << 20

// maxChunkLineBytes bounds a chunk-size line with its extensions, and the
// trailer section after the last chunk.
const maxChunkLineBytes = 4 << 10

var errBodyTooLarge = fmt.Errorf("request body too large: the limit is %d bytes", maxBodyBytes)

// body is the unread body of one request.
type body struct {
	r             *bufio.Reader
	w             *bufio.Writer // where 100 Continue goes
	length        int64         // Content-Length, when not chunked
	chunked       bool
	needsContinue bool // Expect: 100-continue, and no 100 sent yet
	done          bool // read to its end, or there is none
	broken        bool // reading stopped midway: where the next request starts is lost
}

// readAll reads the whole body, or fails with errBodyTooLarge when it is
// over limit (before reading anything when Content-Length shows it), a
// *protocolError for bad chunk framing, or the connection's error.
func (b *body) readAll(limit int) ([]byte, error) {
	if b.done {
		return nil, nil
	}
	if b.broken {
		return nil, errors.New("request body was already read")
	}
	if !b.chunked && b.length > int64(limit) {
		b.broken = true
		return nil, errBodyTooLarge
	}
	if b.needsContinue {
		b.needsContinue = false
		b.w.WriteString("HTTP/1.1 100 Continue\r\n\r\n")
		if err := b.w.Flush(); err != nil {
			b.broken = true
			return nil, err
		}
	}
	var buf []byte
	var err error
	if b.chunked {
		buf, err = b.readChunks(limit, true)
	} else {
		buf = make([]byte, b.length)
		_, err = io.ReadFull(b.r, buf)
	}
	if err != nil {
		b.broken = true
		return nil, err
	}
	b.done = true
	return buf, nil
}

// discard drops what is left of a body no handler read, and reports
// whether the connection can serve another request. A client still waiting
// for 100 Continue sends nothing, and one over the limit is not read: both
// connections are closed instead.
func (b *body) discard(limit int) bool {
	switch {
	case b.done:
		return true
	case b.broken || b.needsContinue || (!b.chunked && b.length > int64(limit)):
		return false
	case b.chunked:
		_, err := b.readChunks(limit, false)
		b.done = err == nil
	default:
		_, err := b.r.Discard(int(b.length))
		b.done = err == nil
	}
	return b.done
}

// readChunks decodes a chunked body (RFC 9112 §7.1), keeping the data when
// keep is set, and drops the chunk extensions and the trailer section.
func (b *body) readChunks(limit int, keep bool) ([]byte, error) {
	var data []byte
	total := 0
	for {
		size, err := b.readChunkSize()
		if err != nil {
			return nil, err
		}
		if size == 0 {
			return data, b.skipTrailers()
		}
		if size > int64(limit-total) {
			return nil, errBodyTooLarge
		}
		total += int(size)
		if keep {
			data, err = readAppend(b.r, data, int(size))
		} else {
			_, err = b.r.Discard(int(size))
		}
		if err != nil {
			return nil, err
		}
		budget := 2
		if line, err := readLine(b.r, &budget); err != nil || len(line) != 0 {
			return nil, badRequest("chunk data is not followed by CRLF")
		}
	}
}

// readChunkSize reads `chunk-size [; ext] CRLF` and returns the size.
func (b *body) readChunkSize() (int64, error) {
	budget := maxChunkLineBytes
	line, err := readLine(b.r, &budget)
	if err != nil {
		return 0, badChunk(err)
	}
	var size int64
	digits := 0
	for ; digits < len(line); digits++ {
		v, ok := hexValue(line[digits])
		if !ok {
			break
		}
		if digits == 15 {
			return 0, badRequest("chunk size too large")
		}
		size = size<<4 | int64(v)
	}
	rest := bytes.TrimLeft(line[digits:], " \t")
	if digits == 0 || (len(rest) > 0 && rest[0] != ';') || !isFieldValue(rest) {
		return 0, badRequest("malformed chunk size line %q", clip(line))
	}
	return size, nil
}

// skipTrailers reads the trailer fields after the last chunk up to the empty
// line, checking their syntax; they are not used.
func (b *body) skipTrailers() error {
	budget := maxChunkLineBytes
	for {
		line, err := readLine(b.r, &budget)
		if err != nil {
			return badChunk(err)
		}
		if len(line) == 0 {
			return nil
		}
		if _, _, err := splitField(line); err != nil {
			return err
		}
	}
}

// badChunk turns a head-sized line limit into a framing error; connection
// errors stay as they are.
func badChunk(err error) error {
	if errors.Is(err, errHeadTooLarge) {
		return badRequest("chunk size line or trailer section too long")
	}
	return err
}

// readAppend reads exactly n more bytes onto data.
func readAppend(r io.Reader, data []byte, n int) ([]byte, error) {
	start := len(data)
	data = append(data, make([]byte, n)...)
	_, err := io.ReadFull(r, data[start:])
	return data, err
}

func hexValue(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
