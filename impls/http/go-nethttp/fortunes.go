package main

// /fortunes: TechEmpower's page, rendered by html/template, which escapes
// each message for the place it appears in (the <script> fortune arrives
// as text, the Japanese one intact).

import (
	"bytes"
	"html/template"
	"net/http"
	"slices"
	"strconv"
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

func (s *server) fortunes(w http.ResponseWriter, r *http.Request) {
	var list []fortune
	err := s.db.withConn(r.Context(), func(conn *pgxpool.Conn) (err error) {
		// An error of Query comes back from CollectRows, as pgx documents.
		rows, _ := conn.Query(r.Context(), "SELECT id, message FROM fortune")
		list, err = pgx.CollectRows(rows, pgx.RowToStructByPos[fortune])
		return err
	})
	if err != nil {
		unavailable(w, err)
		return
	}
	// The connection is back in the pool: the sort and the template run
	// without it.
	writeFortunes(w, list)
}

// writeFortunes answers the page of the stored fortunes and the one added now.
func writeFortunes(w http.ResponseWriter, list []fortune) {
	list = append(list, fortune{ID: 0, Message: "Additional fortune added at request time."})
	slices.SortFunc(list, func(a, b fortune) int { return strings.Compare(a.Message, b.Message) })
	var page bytes.Buffer
	if err := fortunesPage.Execute(&page, list); err != nil {
		http.Error(w, "could not render the page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(page.Len()))
	w.Write(page.Bytes())
}
