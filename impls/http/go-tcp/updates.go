package main

// /updates reads its rows one by one, as /queries does, and writes them back
// in one statement (TechEmpower allows the batched write), as go-nethttp does.

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5/pgxpool"
)

func (s *server) updates(req *request, _ string) response {
	var rows []world
	err := s.withConn(func(ctx context.Context, conn *pgxpool.Conn) (err error) {
		rows, err = readRows(ctx, conn, queryCount(req))
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
		_, err = conn.Exec(ctx, updateRows, ids, numbers)
		return err
	})
	if err != nil {
		return unavailable(err)
	}
	return jsonResponse(rows)
}
