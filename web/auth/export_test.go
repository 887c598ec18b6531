package auth

// DecodeDDCClaims is decodeDDCClaims, for the fuzz target.
var DecodeDDCClaims = decodeDDCClaims
