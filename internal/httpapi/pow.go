package httpapi

import (
	"context"
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
type PowPricer interface {
	Ask(ctx context.Context, user string, net pow.Network, o pow.Outcome) (int, error)
	Seen(ctx context.Context, net pow.Network) error
}

// PowLedger spends each solved challenge once, across servers (pow.Ledger).
type PowLedger interface {
	Spend(ctx context.Context, c pow.Challenge) error
}

// proofs are the proof of work as the guards and the challenge endpoint
// use it.
type proofs struct {
	issuer  *pow.Issuer
	pricer  PowPricer // nil: everyone is asked base
	ledger  PowLedger
	sales   SaleReader
	base    int
	require bool
	log     *slog.Logger
	metrics Metrics
}

func newProofs(d Deps, log *slog.Logger) *proofs {
	return &proofs{issuer: pow.IssuerFor(d.JWTSecret, time.Now), pricer: d.PowPricer, ledger: d.PowLedger,
		sales: d.Catalog, base: d.PowDifficulty, require: d.RequireProofOfWork, log: log, metrics: d.Metrics}
}

// price is the difficulty to ask now, counting this request as o. If
// Redis cannot be asked, it is the base: the shop must not stop over the
// price.
func (p *proofs) price(ctx context.Context, user string, net pow.Network, o pow.Outcome) int {
	d := p.base
	if p.pricer != nil {
		var err error
		if d, err = p.pricer.Ask(ctx, user, net, o); err != nil {
			p.log.WarnContext(ctx, "proof-of-work difficulty unavailable; asking the base", "err", err)
			d = p.base
		}
	}
	p.metrics.asked(d)
	return d
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
	p := g.proofs
	if !p.require {
		return
	}
	id, err := pathID(c, errItemNotFound)
	if err != nil {
		g.fail(c, err)
		return
	}
	ctx, user, net := c.Request.Context(), userOf(c), pow.NetworkOf(c.ClientIP())
	ch, err := p.issuer.Check(c.GetHeader(ProofOfWorkHeader), user, net.Narrow, id)
	if err == nil {
		err = p.ledger.Spend(ctx, ch)
	}
	switch {
	case err == nil:
		p.metrics.judged(nil)
		if p.pricer != nil {
			if err := p.pricer.Seen(ctx, net); err != nil {
				p.log.WarnContext(ctx, "proof-of-work rate not counted", "err", err)
			}
		}
	case !pow.Refused(err):
		g.fail(c, err) // the ledger out of reach: a 503
	default:
		g.refuseProof(c, id, user, net, err)
	}
}

// refuseProof answers 403 proof_of_work_required with a fresh challenge for
// a sale that exists (else item_not_found, as the route would), counted as
// pow.OutcomeOf says: a request that cost no work raises the price of
// others on its network only as one more shopper among its askers. The
// fresh challenge is priced at the network the request came from, so
// spending elsewhere gains nothing. Every refusal names its shopper among
// the askers as a request for a challenge does, so a farm cannot fetch its
// challenges this way to stay out of that count, and a refusal costs its
// shopper a bit more besides.
func (g *guards) refuseProof(c *gin.Context, id int64, user string, net pow.Network, why error) {
	ctx, p := c.Request.Context(), g.proofs
	if p.sales != nil {
		if _, err := p.sales.Get(ctx, id); err != nil {
			g.fail(c, err)
			return
		}
	}
	p.metrics.judged(why) // a refusal about a sale that exists: probes of made-up ids are 404s
	d := p.price(ctx, user, net, pow.OutcomeOf(why))
	g.fail(c, powRequired(why, p.issuer.Issue(user, net.Narrow, id, d), d))
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
	user, net := userOf(c), pow.NetworkOf(c.ClientIP())
	d := a.proofs.price(c.Request.Context(), user, net, pow.Asked)
	c.JSON(http.StatusOK, gin.H{"challenge": a.proofs.issuer.Issue(user, net.Narrow, it.ID, d), "difficulty": d})
}
