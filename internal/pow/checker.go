package pow

import (
	"context"
	"log/slog"
)

// Asker prices a shopper's challenge on a client network, counting their
// requests (Pricer).
type Asker interface {
	Ask(ctx context.Context, user string, net Network, o Outcome) (int, error)
	Seen(ctx context.Context, net Network) error
}

// Spender spends each solved challenge once, across servers (Ledger).
type Spender interface {
	Spend(ctx context.Context, c Challenge) error
}

// Metrics count what the proof of work does to the traffic.
type Metrics interface {
	// Judged counts a proof accepted (err nil) or refused.
	Judged(err error)
	// Asked counts a challenge handed out at difficulty bits.
	Asked(bits int)
}

// Checker takes the proof-of-work decisions of a request: whether its proof
// passes, and what a fresh challenge costs. The HTTP layer reads the header
// and writes the answer around it.
type Checker struct {
	issuer  *Issuer
	pricer  Asker // nil: everyone is asked base
	ledger  Spender
	base    int
	log     *slog.Logger
	metrics Metrics // nil counts nothing
}

// NewChecker returns a checker of the challenges issuer hands out, spent in
// ledger and priced by pricer (nil: always base).
func NewChecker(issuer *Issuer, pricer Asker, ledger Spender, base int, log *slog.Logger, m Metrics) *Checker {
	return &Checker{issuer: issuer, pricer: pricer, ledger: ledger, base: base, log: log, metrics: m}
}

// Price is the difficulty to ask now, counting this request as o. If
// Redis cannot be asked, it is the base: the shop must not stop over the
// price.
func (c *Checker) Price(ctx context.Context, user string, net Network, o Outcome) int {
	d := c.base
	if c.pricer != nil {
		var err error
		if d, err = c.pricer.Ask(ctx, user, net, o); err != nil {
			c.log.WarnContext(ctx, "proof-of-work difficulty unavailable; asking the base", "err", err)
			d = c.base
		}
	}
	if c.metrics != nil {
		c.metrics.Asked(d)
	}
	return d
}

// Challenge is a fresh challenge for user on net and item, priced as a
// request for one (Asked), and its difficulty.
func (c *Checker) Challenge(ctx context.Context, user string, net Network, item int64) (string, int) {
	d := c.Price(ctx, user, net, Asked)
	return c.issuer.Issue(user, net.Narrow, item, d), d
}

// Check spends proof, solved by user for item and handed to net. It returns
// nil for a good proof not spent before, an error Refused recognises for a
// proof to refuse, or the ledger's error when it is out of reach.
func (c *Checker) Check(ctx context.Context, proof, user string, net Network, item int64) error {
	ch, err := c.issuer.Check(proof, user, net.Narrow, item)
	if err == nil {
		err = c.ledger.Spend(ctx, ch)
	}
	if err != nil {
		return err
	}
	c.judged(nil)
	if c.pricer != nil {
		if err := c.pricer.Seen(ctx, net); err != nil {
			c.log.WarnContext(ctx, "proof-of-work rate not counted", "err", err)
		}
	}
	return nil
}

// Refuse counts a refusal for why and returns the fresh challenge to send
// with it, and its difficulty. The challenge is priced at the network the
// request came from, so spending elsewhere gains nothing, and as OutcomeOf
// says: a request that cost no work raises the price of others on its
// network only as one more shopper among its askers. Every refusal names
// its shopper among the askers as a request for a challenge does, so a farm
// cannot fetch its challenges this way to stay out of that count.
func (c *Checker) Refuse(ctx context.Context, user string, net Network, item int64, why error) (string, int) {
	c.judged(why)
	d := c.Price(ctx, user, net, OutcomeOf(why))
	return c.issuer.Issue(user, net.Narrow, item, d), d
}

func (c *Checker) judged(err error) {
	if c.metrics != nil {
		c.metrics.Judged(err)
	}
}
