package main

// The routes that write or wait: /updates reads its rows one by one, as
// /queries does, and writes them back in one statement (TechEmpower allows
// the batched write); /slowdb's query waits in the database.

import (
	"net/http"
	"slices"

	"github.com/jackc/pgx/v5/pgxpool"
)

func (s *server) updates(w http.ResponseWriter, r *http.Request) {
	var rows []world
	err := s.db.withConn(r.Context(), func(conn *pgxpool.Conn) (err error) {
		rows, err = readRows(r.Context(), conn, queryCount(r))
		if err != nil {
			return err
		}
		for i := range rows {
			rows[i].RandomNumber = randomID()
		}
		// Written in id order (see updateRows); answered in the order read.
		sorted := slices.Clone(rows)
		slices.SortFunc(sorted, func(a, b world) int { return int(a.ID - b.ID) })
		ids, numbers := make([]int32, len(sorted)), make([]int32, len(sorted))
		for i, row := range sorted {
			ids[i], numbers[i] = row.ID, row.RandomNumber
		}
		_, err = conn.Exec(r.Context(), updateRows, ids, numbers)
		return err
	})
	if err != nil {
		unavailable(w, err)
		return
	}
	writeJSON(w, rows)
}

func (s *server) slowQuery(w http.ResponseWriter, r *http.Request) {
	s.answerRow(w, r, selectSlow, s.cfg.dbSlow.Seconds())
}
