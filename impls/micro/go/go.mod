module concur/micro-go

go 1.26
