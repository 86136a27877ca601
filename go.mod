module hitcounter

go 1.26.0

require (
	github.com/chromedp/chromedp v0.23.1
	github.com/x-way/crawlerdetect v0.2.31
	go.etcd.io/bbolt v1.5.0
	golang.org/x/crypto v0.59.0
	golang.org/x/image v0.48.0
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
)

require (
	github.com/chromedp/cdproto v0.160.1 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/prometheus/client_golang v1.25.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)
