package main

// Responses: the value a handler returns, and how it goes on the wire with
// the headers SPEC §4 asks of every answer (Content-Length, Content-Type,
// Date, Server), error answers included.

import (
	"strconv"
	"time"
)

const (
	serverName = "concur-go-tcp"
	textPlain  = "text/plain; charset=utf-8"
	// dateFormat is RFC 9110 §5.6.7's IMF-fixdate, in UTC.
	dateFormat = "Mon, 02 Jan 2006 15:04:05 GMT"
)

// response is a whole answer, body included: every body here is small
// enough to build before writing, so Content-Length is always known.
type response struct {
	status      int
	contentType string
	body        []byte
	allow       string // the Allow header of a 405
}

// text is a text/plain answer; errors are one line of it (SPEC §3).
func text(status int, body string) response {
	return response{status: status, contentType: textPlain, body: []byte(body)}
}

func errorResponse(status int, reason string) response {
	return text(status, reason)
}

// statusText holds the reason phrases of the statuses this server sends.
var statusText = map[int]string{
	100: "Continue",
	200: "OK",
	400: "Bad Request",
	403: "Forbidden",
	404: "Not Found",
	405: "Method Not Allowed",
	413: "Content Too Large",
	417: "Expectation Failed",
	431: "Request Header Fields Too Large",
	500: "Internal Server Error",
	501: "Not Implemented",
	503: "Service Unavailable",
	505: "HTTP Version Not Supported",
}

// write sends resp and flushes it. req is nil for the answer to a request
// that could not be parsed. The status line says HTTP/1.1 to HTTP/1.0
// clients too (RFC 9112 §2.3); the body is framed by Content-Length, which
// both versions read, never chunked.
func (c *conn) write(req *request, resp response, closing bool) error {
	w := c.w
	w.WriteString("HTTP/1.1 ")
	w.WriteString(strconv.Itoa(resp.status))
	w.WriteByte(' ')
	w.WriteString(statusText[resp.status])
	w.WriteString("\r\nServer: " + serverName + "\r\nDate: ")
	w.Write(time.Now().UTC().AppendFormat(c.dateBuf[:0], dateFormat))
	w.WriteString("\r\nContent-Type: ")
	w.WriteString(resp.contentType)
	w.WriteString("\r\nContent-Length: ")
	w.WriteString(strconv.Itoa(len(resp.body)))
	if resp.allow != "" {
		w.WriteString("\r\nAllow: ")
		w.WriteString(resp.allow)
	}
	switch {
	case closing:
		w.WriteString("\r\nConnection: close")
	case req.minor == 0:
		w.WriteString("\r\nConnection: keep-alive")
	}
	w.WriteString("\r\n\r\n")
	if req == nil || req.method != "HEAD" {
		w.Write(resp.body)
	}
	return w.Flush()
}
