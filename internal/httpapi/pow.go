package httpapi

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/pow"
)

// ProofOfWorkHeader carries a solved challenge, "<challenge>:<x>", on the
// routes that put a price on bots: joining a waiting room, entering a draw.
const ProofOfWorkHeader = "X-Proof-Of-Work"

// PowPricer decides the difficulty asked of a shopper on a client network,
// counting their requests (pow.Pricer).
type PowPricer = pow.Asker

// PowLedger spends each solved challenge once, across servers (pow.Ledger).
type PowLedger = pow.Spender

// proofs are the proof of work as the guards and the challenge endpoint
// use it: the decisions are the checker's.
type proofs struct {
	*pow.Checker
	sales   SaleReader
	require bool
}

func newProofs(d Deps, log *slog.Logger) *proofs {
	ch := pow.NewChecker(pow.IssuerFor(d.JWTSecret, time.Now), d.PowPricer, d.PowLedger, d.PowDifficulty, log, d.Metrics.Pow)
	return &proofs{Checker: ch, sales: d.Catalog, require: d.RequireProofOfWork}
}

// proofOfWork lets a request through only with a proof of work solved for
// this shopper and sale, handed to the client network the request comes
// from, and not spent before; the proof is spent on the way. Anything else
// is refused with a fresh challenge for this network, whose difficulty
// counts the refusal (pow.Pricer). The network is pow.NetworkOf of Gin's
// ClientIP, as the challenge endpoint and the rate limits see it: behind a
// trusted proxy the client's, and X-Forwarded-For from anyone else counts
// for nothing. Off (SECKILL_POW=off), it lets all through.
func (g *guards) proofOfWork(c *gin.Context) {
	if !g.proofs.require {
		return
	}
	id, err := pathID(c, errItemNotFound)
	if err != nil {
		g.fail(c, err)
		return
	}
	user, net := userOf(c), pow.NetworkOf(c.ClientIP())
	err = g.proofs.Check(c.Request.Context(), c.GetHeader(ProofOfWorkHeader), user, net, id)
	switch {
	case err == nil:
	case !pow.Refused(err):
		g.fail(c, err) // the ledger out of reach: a 503
	default:
		g.refuseProof(c, id, user, net, err)
	}
}

// refuseProof answers 403 proof_of_work_required with a fresh challenge for
// a sale that exists (else item_not_found, as the route would, and probes
// of made-up ids are not counted as refusals).
func (g *guards) refuseProof(c *gin.Context, id int64, user string, net pow.Network, why error) {
	ctx, p := c.Request.Context(), g.proofs
	if p.sales != nil {
		if _, err := p.sales.Get(ctx, id); err != nil {
			g.fail(c, err)
			return
		}
	}
	challenge, d := p.Refuse(ctx, user, net, id, why)
	g.fail(c, powRequired(why, challenge, d))
}

// powRequired is the refusal of why, carrying challenge at difficulty d.
func powRequired(why error, challenge string, d int) *Error {
	e := *errPowRequired
	reason := "no " + ProofOfWorkHeader + " header was sent"
	if !errors.Is(why, pow.ErrMissing) {
		reason = "the proof was refused: " + strings.TrimPrefix(why.Error(), "pow: ")
	}
	e.Message = e.Message + " (" + reason + "): find a decimal x such that SHA-256(challenge \":\" x) starts with " +
		"difficulty zero bits, and send " + ProofOfWorkHeader + ": <challenge>:<x>"
	e.Challenge, e.Difficulty = challenge, &d
	return &e
}

// challengeAPI hands out proof-of-work challenges.
type challengeAPI struct {
	saleView
	proofs *proofs
}

// challenge answers a challenge for the shopper, the sale of :id and the
// client network asking, at the difficulty asked of them now. It answers
// with SECKILL_POW=off too: a page needs not know how the server is set.
func (a challengeAPI) challenge(c *gin.Context) {
	it, ok := a.itemFromPath(c)
	if !ok {
		return
	}
	challenge, d := a.proofs.Challenge(c.Request.Context(), userOf(c), pow.NetworkOf(c.ClientIP()), it.ID)
	c.JSON(http.StatusOK, gin.H{"challenge": challenge, "difficulty": d})
}
