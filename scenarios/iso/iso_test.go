package iso

import "testing"

func TestCurrency(t *testing.T) {
	tests := []struct {
		code string
		want bool
	}{
		{"EUR", true},
		{"978", true},
		{"USD", true},
		{"840", true},
		{"JPY", true},
		{"392", true},
		{"XTS", true}, // the code reserved for testing
		{"eur", false},
		{"EU", false},
		{"EURO", false},
		{"ABC", false},
		{"000", false},
		{"", false},
		{"97", false},
	}
	for _, tt := range tests {
		if got := Currency(tt.code); got != tt.want {
			t.Errorf("Currency(%q) = %v, want %v", tt.code, got, tt.want)
		}
	}
}

func TestCountry(t *testing.T) {
	tests := []struct {
		code string
		want bool
	}{
		{"USA", true},
		{"840", true},
		{"FRA", true},
		{"250", true},
		{"DEU", true},
		{"004", true},
		{"usa", false},
		{"US", false},
		{"XXX", false},
		{"999", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := Country(tt.code); got != tt.want {
			t.Errorf("Country(%q) = %v, want %v", tt.code, got, tt.want)
		}
	}
}

func BenchmarkCurrency(b *testing.B) {
	for b.Loop() {
		Currency("THB")
	}
}

func TestCurrencyNumeric(t *testing.T) {
	tests := []struct {
		code, want string
		ok         bool
	}{
		{"EUR", "978", true},
		{"978", "978", true},
		{"JPY", "392", true},
		{"XTS", "963", true},
		{"eur", "", false},
		{"000", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got, ok := CurrencyNumeric(tt.code); got != tt.want || ok != tt.ok {
			t.Errorf("CurrencyNumeric(%q) = %q, %v; want %q, %v", tt.code, got, ok, tt.want, tt.ok)
		}
	}
	// Every code Currency accepts has a numeric form, and only those.
	for alpha, num := range currencyNumbers {
		if !Currency(alpha) || !Currency(num) {
			t.Errorf("pair %s/%s not accepted by Currency", alpha, num)
		}
	}
}
