package main

// /fortunes: TechEmpower's page, rendered by html/template (the standard
// library's, as go-nethttp renders it: a hand-written server still writes
// HTML the Go way), which escapes each message for the place it appears in
// (the <script> fortune arrives as text, the Japanese one intact).

import (
	"bytes"
	"context"
	"html/template"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

type fortune struct {
	ID      int32
	Message string
}

var fortunesPage = template.Must(template.New("fortunes").Parse(`<!DOCTYPE html>
<html>
<head><title>Fortunes</title></head>
<body>
<table>
<tr><th>id</th><th>message</th></tr>
{{range .}}<tr><td>{{.ID}}</td><td>{{.Message}}</td></tr>
{{end}}</table>
</body>
</html>
`))

func (s *server) fortunes(req *request, _ string) response {
	var list []fortune
	err := s.withConn(func(ctx context.Context, conn *pgxpool.Conn) (err error) {
		// An error of Query comes back from CollectRows, as pgx documents.
		rows, _ := conn.Query(ctx, "SELECT id, message FROM fortune")
		list, err = pgx.CollectRows(rows, pgx.RowToStructByPos[fortune])
		return err
	})
	if err != nil {
		return unavailable(err)
	}
	// The connection is back in the pool: the sort and the template run
	// without it.
	return renderFortunes(list)
}

// renderFortunes is the page of the stored fortunes and the one added now.
func renderFortunes(list []fortune) response {
	list = append(list, fortune{ID: 0, Message: "Additional fortune added at request time."})
	slices.SortFunc(list, func(a, b fortune) int { return strings.Compare(a.Message, b.Message) })
	var page bytes.Buffer
	if err := fortunesPage.Execute(&page, list); err != nil {
		return errorResponse(500, "could not render the page: "+err.Error())
	}
	return response{status: 200, contentType: "text/html; charset=utf-8", body: page.Bytes()}
}
