module github.com/threeds-sandbox/threeds-sandbox/scripts/tools

go 1.26.0

require (
	github.com/chromedp/chromedp v0.23.0
	github.com/redis/rueidis v1.0.79
	github.com/threeds-sandbox/threeds-sandbox v0.0.0
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/brianvoe/gofakeit/v7 v7.18.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/gorilla/mux v1.8.1 // indirect
	github.com/gorilla/securecookie v1.1.2 // indirect
	github.com/klauspost/compress v1.20.1 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/piglig/go-qr v1.1.0 // indirect
	github.com/prometheus/client_golang v1.25.0 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	github.com/prometheus/common v0.72.0 // indirect
	github.com/prometheus/procfs v0.22.0 // indirect
	github.com/yuin/goldmark v1.8.7 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

// The tools measure and picture the sandbox of this repository, as it is
// checked out.
replace github.com/threeds-sandbox/threeds-sandbox => ../..
