module concur/go-tcp

go 1.26.0

require golang.org/x/crypto v0.58.0
