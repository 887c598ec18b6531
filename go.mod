module github.com/threeds-sandbox/threeds-sandbox

go 1.26

require (
	github.com/PuerkitoBio/goquery v1.13.0
	github.com/brianvoe/gofakeit/v7 v7.18.1
	github.com/chromedp/chromedp v0.23.0
	github.com/gorilla/mux v1.8.1
	github.com/gorilla/securecookie v1.1.2
	golang.org/x/net v0.58.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/andybalholm/cascadia v1.3.4 // indirect
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
)
