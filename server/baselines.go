package server

// OOVVariants are the four OOV models of §4.4 evaluated in the OOV setting (§6.2.4).
var OOVVariants = []string{"ce-feature", "siamese-ce-feature", "ce-avg", "siamese-ce-avg"}
