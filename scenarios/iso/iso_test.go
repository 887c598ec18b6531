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

func TestMinorUnits(t *testing.T) {
	tests := []struct {
		code  string
		units int
		ok    bool
	}{
		{"EUR", 2, true}, {"978", 2, true}, {"USD", 2, true}, {"GBP", 2, true}, {"HUF", 2, true},
		{"JPY", 0, true}, {"392", 0, true}, {"KRW", 0, true}, {"ISK", 0, true}, {"XOF", 0, true},
		{"BHD", 3, true}, {"KWD", 3, true}, {"JOD", 3, true}, {"OMR", 3, true}, {"TND", 3, true},
		{"IQD", 3, true}, {"LYD", 3, true}, {"414", 3, true},
		{"CLF", 4, true}, {"UYW", 4, true}, {"990", 4, true},
		{"XAU", 0, false}, {"959", 0, false}, {"XTS", 0, false}, {"XXX", 0, false}, {"999", 0, false},
		{"eur", 0, false}, {"ABC", 0, false}, {"000", 0, false}, {"", 0, false}, {"EURO", 0, false},
	}
	for _, tt := range tests {
		if units, ok := MinorUnits(tt.code); units != tt.units || ok != tt.ok {
			t.Errorf("MinorUnits(%q) = %d, %v; want %d, %v", tt.code, units, ok, tt.units, tt.ok)
		}
	}
	// Every current code has a minor unit except the N.A. ones, which are
	// all X codes of funds, metals and special uses; both forms agree.
	for alpha, num := range currencyNumbers {
		ua, oka := MinorUnits(alpha)
		un, okn := MinorUnits(num)
		if ua != un || oka != okn {
			t.Errorf("MinorUnits(%s) = %d, %v but MinorUnits(%s) = %d, %v", alpha, ua, oka, num, un, okn)
		}
		if !oka && alpha[0] != 'X' {
			t.Errorf("MinorUnits(%s): no minor unit for a national currency", alpha)
		}
	}
}
