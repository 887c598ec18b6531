//go:build full

package e2e

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// styleCase is one challenge style, completed in the demo checkout once
// with the mouse at each window size and once with the keyboard alone.
type styleCase struct {
	name, card string
	ready      string // a control of the style, visible once the page is
	picture    string // the docs' picture, taken at window size 02
	sizes      []int  // the window sizes of the mouse run; nil: all five
	mouse      func(t *testing.T, s *styleRun)
	keys       func(t *testing.T, s *styleRun) // nil: no keyboard run
	want       outcome
	authType   string
	counter    string
	whiteList  string
}

// styleRun is one purchase of the demo checkout: its tab (queries in the
// challenge iframe) and the browser, for the banking app's tab.
type styleRun struct {
	tb   *tab
	size int
	open func(url string) *tab
}

// appTab opens the banking app page the oob challenge links to in a tab
// of its own, as the cardholder's phone would.
func (s *styleRun) appTab(t *testing.T) *tab {
	t.Helper()
	href := evalIn[string](s.tb, `(document.querySelector("[data-action=open-app]")||{}).href||""`)
	app := s.open(href)
	app.waitVisible("[data-action=approve]")
	return app
}

// fit checks that the challenge page in the iframe, as it is now, does
// not scroll sideways and hides no control past its right edge.
func (s *styleRun) fit(t *testing.T) {
	t.Helper()
	if got := evalIn[string](s.tb, `document.documentElement.scrollWidth+" "+window.innerWidth`); !fits(got) {
		t.Errorf("the page at window size %02d scrolls sideways: scrollWidth, width = %s", s.size, got)
	}
	if got := evalIn[string](s.tb, clippedJS); got != "none" {
		t.Errorf("at window size %02d, controls of the page reach past the right edge: %s", s.size, got)
	}
}

// TestBrowserChallengeStyles completes every challenge style in a real
// headless Chromium, in the iframe of the console's demo checkout, at
// every challengeWindowSize (01–05), and each style once more at size 01
// with the keyboard alone (Tab, Shift+Tab, arrows, Space, Enter, typed
// digits). Each run checks that the page does not scroll sideways and
// the demo's enquiry: status, ECI, statusReason, challengeCancel,
// authenticationType, interactionCounter, and whiteListStatus where the
// page asked. At window size 02 it takes the docs' picture of each style.
func TestBrowserChallengeStyles(t *testing.T) {
	t.Parallel()
	browser := newBrowser(t)
	p := startDefault(t)

	tests := []styleCase{
		{
			name: "otp resend", card: "4000000000009102", ready: "[data-action=resend]",
			mouse: func(t *testing.T, s *styleRun) {
				s.tb.click("[data-action=resend]")
				if got := s.tb.text("#otp-message"); !strings.Contains(got, "new code") {
					t.Errorf("message after a resend = %q", got)
				}
				s.fit(t)
				s.tb.typeText("input[name=otp]", "1234")
				s.tb.click("[data-action=otp]")
			},
			keys: func(t *testing.T, s *styleRun) {
				keyTo(t, s.tb, kb.Tab, "button:resend")
				press(t, s.tb, kb.Enter)
				s.tb.waitVisible("#otp-message")
				keyTo(t, s.tb, kb.Tab, "input:otp")
				press(t, s.tb, "1234"+kb.Enter)
			},
			want: outcome{"Y", "", ""}, authType: "02", counter: "01", // a resend is no authentication cycle
		},
		{
			name: "oob approved in the banking app", card: "4000000000009300", ready: "[data-action=continue]",
			picture: "challenge-oob-390x400.png",
			mouse: func(t *testing.T, s *styleRun) {
				s.tb.click("[data-action=continue]")
				if got := s.tb.text("#oob-message"); !strings.Contains(got, "Not approved yet") {
					t.Errorf("continue before the app = %q", got)
				}
				s.fit(t)
				// The app approves on another device; the page notices by
				// itself and continues.
				s.appTab(t).click("[data-action=approve]")
			},
			keys: func(t *testing.T, s *styleRun) {
				keyTo(t, s.tb, kb.Tab, "button:continue")
				press(t, s.tb, kb.Enter)
				if got := s.tb.text("#oob-message"); !strings.Contains(got, "Not approved yet") {
					t.Errorf("continue before the app = %q", got)
				}
				app := s.appTab(t)
				keyTo(t, app, kb.Tab, "button:approve")
				press(t, app, " ")
			},
			want: outcome{"Y", "", ""}, authType: "03", counter: "01", // nor a Continue before the app answered
		},
		{
			name: "select", card: "4000000000009326", ready: "[data-action=select]",
			picture: "challenge-select-390x400.png",
			mouse: func(t *testing.T, s *styleRun) {
				s.tb.click(`input[name=choice][value="Chiang Mai"]`)
				s.tb.click("[data-action=select]")
			},
			keys: func(t *testing.T, s *styleRun) {
				// Tab enters the radio group; the arrows move in it.
				keyTo(t, s.tb, kb.Tab, "input:choice=")
				keyTo(t, s.tb, kb.ArrowDown, "input:choice=Chiang Mai")
				keyTo(t, s.tb, kb.Tab, "button:select")
				press(t, s.tb, kb.Enter)
			},
			want: outcome{"Y", "", ""}, authType: "01", counter: "01",
		},
		{
			name: "multiselect, a wrong answer first", card: "4000000000009334", ready: "[data-action=select]",
			picture: "challenge-multiselect-390x400.png",
			mouse: func(t *testing.T, s *styleRun) {
				s.tb.click(`input[name=choice][value="Sandbox Coffee"]`)
				s.tb.click("[data-action=select]")
				s.tb.waitVisible("#choice-message")
				s.fit(t)
				s.tb.click(`input[name=choice][value="Sandbox Coffee"]`)
				s.tb.click(`input[name=choice][value="Demo Books"]`)
				s.tb.click("[data-action=select]")
			},
			keys: func(t *testing.T, s *styleRun) {
				keyTo(t, s.tb, kb.Tab, "input:choice=Sandbox Coffee")
				press(t, s.tb, " ")
				keyTo(t, s.tb, kb.Tab, "button:select")
				press(t, s.tb, kb.Enter)
				s.tb.waitVisible("#choice-message")
				// Forward to the button, then back over the choices.
				keyTo(t, s.tb, kb.Tab, "button:select")
				toggleBack(t, s.tb, "Sandbox Coffee", "Demo Books")
				keyTo(t, s.tb, kb.Tab, "button:select")
				press(t, s.tb, kb.Enter)
			},
			want: outcome{"Y", "", ""}, authType: "01", counter: "02",
		},
		{
			name: "password, a wrong one first", card: "4000000000009359", ready: "[data-action=password]",
			mouse: func(t *testing.T, s *styleRun) {
				s.tb.typeText("input[name=entry]", "hunter2")
				s.tb.click("[data-action=password]")
				if got := s.tb.text("#password-message"); !strings.Contains(got, "Incorrect password") {
					t.Errorf("message after a wrong password = %q", got)
				}
				s.fit(t)
				s.tb.typeText("input[name=entry]", "Tr0ub4dor!")
				s.tb.click("[data-action=password]")
			},
			keys: func(t *testing.T, s *styleRun) {
				keyTo(t, s.tb, kb.Tab, "input:password")
				press(t, s.tb, "hunter2"+kb.Enter)
				s.tb.waitVisible("#password-message")
				keyTo(t, s.tb, kb.Tab, "input:password")
				press(t, s.tb, "Tr0ub4dor!"+kb.Enter)
			},
			want: outcome{"Y", "", ""}, authType: "01", counter: "02",
		},
		{
			name: "trust this merchant", card: "4000000000009342", ready: "[data-action=trust]",
			mouse: func(t *testing.T, s *styleRun) {
				s.tb.click("[data-action=trust]")
				s.tb.typeText("input[name=otp]", "1234")
				s.tb.click("[data-action=otp]")
			},
			keys: func(t *testing.T, s *styleRun) {
				keyTo(t, s.tb, kb.Tab, "input:trust=Y")
				press(t, s.tb, " ")
				keyTo(t, s.tb, kb.Tab, "input:otp")
				press(t, s.tb, "1234"+kb.Enter)
			},
			want: outcome{"Y", "", ""}, authType: "02", counter: "01", whiteList: "Y",
		},
		{
			name: "oob cancelled", card: "4000000000009300", ready: "[data-action=continue]", sizes: []int{1},
			mouse: func(t *testing.T, s *styleRun) {
				s.tb.click("[data-action=cancel]")
			},
			want: outcome{"N", "01", "01"}, authType: "03", counter: "00", // nor a cancel
		},
	}
	run := func(t *testing.T, tt styleCase, size int, keyboard bool) {
		tb := newTab(t, browser)
		s := &styleRun{tb: tb, size: size, open: func(u string) *tab {
			app := newTab(t, browser)
			app.do("open the banking app", chromedp.Navigate(u))
			return app
		}}
		tb.do("open the demo checkout", chromedp.Navigate(p.URL+"/console/demo?card="+tt.card),
			chromedp.SetValue(chromedp.CSS("#window-size"), strconv.Itoa(size), tb.scope()...))
		if got := evalIn[string](tb, `document.getElementById("card").value`); got != tt.card {
			t.Fatalf("demo card = %q, want %q", got, tt.card)
		}
		if keyboard {
			keyTo(t, tb, kb.Tab, "button:pay")
			press(t, tb, kb.Enter)
		} else {
			tb.click("#pay")
		}
		tb.frame = true
		tb.waitVisible(tt.ready)
		s.fit(t)
		if px := windowPixels[size]; px[0] > 0 {
			if got := evalIn[int](tb, `window.innerWidth`); got != px[0] {
				t.Errorf("the challenge iframe is %d px wide, want %d", got, px[0])
			}
		}
		if size == 2 && tt.picture != "" && !keyboard {
			tb.frame = false
			tb.screenshot(tt.picture, "iframe#challenge")
			tb.frame = true
		}
		if keyboard {
			tt.keys(t, s)
		} else {
			tt.mouse(t, s)
		}
		tb.frame = false
		evalIn[bool](tb, `document.body.getAttribute("data-result") !== null && !document.getElementById("enquiry-box").hidden`)
		var e map[string]any
		if err := json.Unmarshal([]byte(evalIn[string](tb, `document.getElementById("enquiry-json").textContent`)), &e); err != nil {
			t.Fatalf("the demo's enquiry response is not JSON: %v", err)
		}
		wantECI := "07"
		if tt.want.status == "Y" {
			wantECI = "05"
		}
		for field, want := range map[string]string{
			"transactionStatus": tt.want.status, "eci": wantECI, "statusReason": tt.want.reason,
			"challengeCancel": tt.want.cancel, "authenticationType": tt.authType,
			"interactionCounter": tt.counter, "whiteListStatus": tt.whiteList,
		} {
			if got, _ := e[field].(string); got != want {
				t.Errorf("enquiry %s = %q, want %q", field, got, want)
			}
		}
		if got, _ := e["whiteListStatusSource"].(string); tt.whiteList != "" && got != "03" {
			t.Errorf("enquiry whiteListStatusSource = %q, want 03", got)
		}
		if t.Failed() {
			t.Logf("enquiry: %v", e)
		}
	}
	// Each purchase has a tab of its own, and the purchases run side by
	// side: most of a purchase is waiting for the pages.
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sizes := tt.sizes
			if sizes == nil {
				sizes = []int{1, 2, 3, 4, 5}
			}
			for _, size := range sizes {
				t.Run(fmt.Sprintf("size %02d", size), func(t *testing.T) {
					t.Parallel()
					run(t, tt, size, false)
				})
			}
			if tt.keys != nil {
				t.Run("keyboard only, size 01", func(t *testing.T) {
					t.Parallel()
					run(t, tt, 1, true)
				})
			}
		})
	}
}

// fits reads "scrollWidth innerWidth" and says whether the page fits.
func fits(s string) bool {
	var scroll, width int
	if _, err := fmt.Sscan(s, &scroll, &width); err != nil {
		return false
	}
	return scroll <= width
}

// clippedJS lists the controls and labels that reach past the right edge
// of the page, which hides them when the page cannot scroll sideways, or
// says "none".
const clippedJS = `(function(){var w=document.documentElement.clientWidth,out=[];
document.querySelectorAll("a,button,input,select,textarea,label,legend,h1,p").forEach(function(e){
var r=e.getBoundingClientRect();if(r.width>0&&r.right>w+0.5){out.push(e.tagName.toLowerCase()+(e.getAttribute("data-action")?"[data-action="+e.getAttribute("data-action")+"]":"")+" right "+Math.round(r.right)+" > "+w);}});
return out.length?out.join(", "):"none";})()`

// focusJS names the focused element, inside iframes too: its tag, a colon
// and its data-action, id or name, and for a radio or checkbox "=" and its
// value, e.g. "button:pay", "input:otp", "input:choice=Demo Books"; then a
// space and its computed outline style.
const focusJS = `(function(){var d=document,e=d.activeElement;
while(e&&e.tagName==="IFRAME"&&e.contentDocument){d=e.contentDocument;e=d.activeElement;}
if(!e){return "";}
var s=e.tagName.toLowerCase()+":"+(e.getAttribute("data-action")||e.id||e.name||"");
if(e.type==="radio"||e.type==="checkbox"){s+="="+e.value;}
return s+"\t"+d.defaultView.getComputedStyle(e).outlineStyle;})()`

// focused returns the focused element (see focusJS) and its outline style.
func focused(t *testing.T, tb *tab) (string, string) {
	t.Helper()
	got, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](focusJS))
	if err != nil {
		t.Fatalf("read the focus: %v", err)
	}
	name, outline, _ := strings.Cut(got, "\t")
	return name, outline
}

// keyTo presses key (Tab, Shift+Tab, an arrow) until the element named by
// want has the focus (a want ending in "=" names any radio or checkbox of
// that name), at most 40 times, and checks that the focus is drawn.
func keyTo(t *testing.T, tb *tab, key, want string) {
	t.Helper()
	var seen []string
	for range 40 {
		press(t, tb, key)
		got, outline := focused(t, tb)
		if got == want || strings.HasSuffix(want, "=") && strings.HasPrefix(got, want) {
			if outline == "none" || outline == "" {
				t.Errorf("%s has the focus but no visible outline (outline-style %q)", got, outline)
			}
			return
		}
		seen = append(seen, got)
	}
	t.Fatalf("%q never reached %q; the focus went %v", key, want, seen)
}

// toggleBack goes back with Shift+Tab over the checkboxes before the
// focus and presses Space on each of values, until all are toggled.
func toggleBack(t *testing.T, tb *tab, values ...string) {
	t.Helper()
	left := map[string]bool{}
	for _, v := range values {
		left["input:choice="+v] = true
	}
	var seen []string
	for range 20 {
		press(t, tb, shiftTab)
		got, _ := focused(t, tb)
		seen = append(seen, got)
		if left[got] {
			press(t, tb, " ")
			delete(left, got)
			if len(left) == 0 {
				return
			}
		}
	}
	t.Fatalf("Shift+Tab never reached %v; the focus went %v", left, seen)
}

// shiftTab is the key event of Shift+Tab.
const shiftTab = "\u200e" + kb.Tab

// press sends keys as key events to the tab's focused element.
func press(t *testing.T, tb *tab, keys string) {
	t.Helper()
	if keys == shiftTab {
		if err := chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(chromedp.ModifierShift))); err != nil {
			t.Fatalf("Shift+Tab: %v", err)
		}
		return
	}
	if err := chromedp.Do(tb.ctx, chromedp.KeyEvent(keys)); err != nil {
		t.Fatalf("keys %q: %v", keys, err)
	}
}
