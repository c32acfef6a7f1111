package stock

// Return codes of lua/reserve.lua, one per code its header documents;
// reserveResult maps them to results and errors.
const (
	reserveOK          = 0 // reserved; detail is the new buyer value
	reserveReplay      = 1 // the idempotency key had reserved; detail is that buyer value
	reserveNotWarmed   = 2 // the sale is unknown to Redis
	reserveNotStarted  = 3
	reserveEnded       = 4
	reserveOverLimit   = 5
	reserveAlready     = 6 // detail is the shopper's existing buyer value
	reserveSoldOut     = 7
	reserveNotAdmitted = 8
	reserveNoVariant   = 9
	reserveVariantNeed = 10 // several variants and none named
	reserveRateLimited = 11 // detail is the wait in microseconds
	reserveBadQuantity = 12 // not a whole number >= 1
	reserveBadArgument = 13 // detail names the malformed argument
	reservePaused      = 14
	reserveNoOffer     = 15 // a draw sale, and no open offer for this shopper and variant
)

// Return codes of lua/adjust.lua.
const (
	adjustApplied   = 0
	adjustRefused   = 1 // the change would take back stock already sold
	adjustNotWarmed = 2
	adjustBadArgs   = 3 // delta or variant id is not a whole number
)

// lua/release.lua's first value: the buyer was forgotten (0: there was
// nothing to release), or the arguments are malformed.
const (
	releaseDone    = 1
	releaseBadArgs = -1
)
