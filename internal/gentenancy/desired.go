package gentenancy

import (
	"bytes"
	"fmt"
	"strings"
)

// Move is one cell's clean move of MovedCards h100 cards from a project
// of one department (From, FromProject) to a project of another (To,
// ToProject). Every number is the queue's before the move.
type Move struct {
	Cell              int
	Pool              string
	From, FromProject string
	To, ToProject     string
	// The h100 guarantees (and limits) before the move, in half cards: of
	// the giving department and project, the receiving department and
	// project.
	FromDeserved, FromProjectDeserved Half
	ToDeserved, ToLimit               Half
	ToProjectDeserved, ToProjectLimit Half
}

// MovedCards is how many h100 cards a clean move takes from one
// department to another.
const MovedCards = cardsMovedPerCell

// Moves returns the clean move of each cell that has one: the department
// with the largest h100 share receives MovedCards cards for its largest
// batch project; they come from the batch project with the largest h100
// guarantee (at least MovedCards) of another department, and from that
// project's department. Batch projects are preemptible, so no
// non-preemptible workload is squeezed by the move.
func (t *Tenancy) Moves() []Move {
	type queueAt struct {
		owner string
		q     *Queue
	}
	var out []Move
	moved := Cards(MovedCards)
	pi := 0
	for c := 0; c < t.Cells; c++ {
		pool := t.Pools[2*c].Name // the cell's h100 pool
		var depts []queueAt
		kids := map[string][]queueAt{} // department → its batch projects' h100 queues
		for ; pi < len(t.Projects) && t.Projects[pi].Cell == c; pi++ {
			p := &t.Projects[pi]
			for qi := range p.Queues {
				if q := &p.Queues[qi]; q.Pool == pool && !p.Interactive {
					kids[p.Parent] = append(kids[p.Parent], queueAt{p.Name, q})
				}
			}
		}
		for di := range t.Departments {
			d := &t.Departments[di]
			if d.Cell != c {
				continue
			}
			for qi := range d.Queues {
				if d.Queues[qi].Pool == pool {
					depts = append(depts, queueAt{d.Name, &d.Queues[qi]})
				}
			}
		}
		largestOf := func(qs []queueAt) int {
			best := -1
			for i, x := range qs {
				if best < 0 || x.q.Deserved > qs[best].q.Deserved {
					best = i
				}
			}
			return best
		}
		to := largestOf(depts)
		if to < 0 || len(kids[depts[to].owner]) == 0 {
			continue
		}
		toKid := kids[depts[to].owner][largestOf(kids[depts[to].owner])]
		from, fromKid := -1, queueAt{}
		for i, d := range depts {
			if i == to || len(kids[d.owner]) == 0 {
				continue
			}
			k := kids[d.owner][largestOf(kids[d.owner])]
			if k.q.Deserved >= moved && (from < 0 || k.q.Deserved > fromKid.q.Deserved) {
				from, fromKid = i, k
			}
		}
		if from < 0 {
			continue
		}
		out = append(out, Move{Cell: c, Pool: pool,
			From: depts[from].owner, FromProject: fromKid.owner, To: depts[to].owner, ToProject: toKid.owner,
			FromDeserved: depts[from].q.Deserved, FromProjectDeserved: fromKid.q.Deserved,
			ToDeserved: depts[to].q.Deserved, ToLimit: depts[to].q.Limit,
			ToProjectDeserved: toKid.q.Deserved, ToProjectLimit: toKid.q.Limit})
	}
	return out
}

// MoveHCL is the desired file of the clean moves of the first cells cells
// (every cell when cells ≤ 0): in each, the giving project and department
// shrink by MovedCards cards and the receiving department and project grow
// by as many, their limits raised where the new guarantee would pass them.
// The pool's total does not change, so the plan passes every check, and
// its steps run in the four phases.
func (t *Tenancy) MoveHCL(cells int) []byte {
	moves := t.Moves()
	if cells > 0 && len(moves) > cells {
		moves = moves[:cells]
	}
	var b bytes.Buffer
	if len(moves) == 1 && moves[0].Cell == 0 {
		m := moves[0]
		comment(&b, fmt.Sprintf("Move %d H100 cards from %s to %s.", MovedCards, m.From, m.To))
		b.WriteString("#\n")
		comment(&b, fmt.Sprintf("%s's %s project gives up %d of its %s guaranteed h100 cards, and the %s department the same %d; %s takes them, and its %s project is guaranteed %d more. The departments' total on the pool does not change.",
			m.From, m.FromProject, MovedCards, m.FromProjectDeserved, m.From, MovedCards, m.To, m.ToProject, MovedCards))
	} else {
		comment(&b, fmt.Sprintf("Move %d H100 cards between two departments in each of %d cells.", MovedCards, len(moves)))
	}
	b.WriteString("#\n")
	comment(&b, "Rendered as patches, the order keeps every state in between within the checks: shrink the project, shrink its department, grow the other department, grow its project.")
	b.WriteString("\nlocals {\n")
	fmt.Fprintf(&b, "  moved = %d # cards\n}\n", MovedCards)
	moved := Cards(MovedCards)
	for _, m := range moves {
		fmt.Fprintf(&b, "\nproject %q {\n  queue %q {\n    gpu { deserved = %s - local.moved }\n  }\n}\n", m.FromProject, m.Pool, m.FromProjectDeserved)
		fmt.Fprintf(&b, "\ndepartment %q {\n  queue %q {\n    gpu { deserved = %s - local.moved }\n  }\n}\n", m.From, m.Pool, m.FromDeserved)
		fmt.Fprintf(&b, "\ndepartment %q {\n  queue %q {\n    %s\n  }\n}\n", m.To, m.Pool, grow(m.ToDeserved, m.ToLimit, moved))
		fmt.Fprintf(&b, "\nproject %q {\n  queue %q {\n    %s\n  }\n}\n", m.ToProject, m.Pool, grow(m.ToProjectDeserved, m.ToProjectLimit, moved))
	}
	return b.Bytes()
}

// grow is the gpu setting that adds moved to deserved, raising the limit
// to the new guarantee when it would be below it.
func grow(deserved, limit, moved Half) string {
	if limit != Unlimited && limit < deserved+moved {
		return fmt.Sprintf("gpu = { deserved = %s + local.moved, limit = %s }", deserved, deserved+moved)
	}
	return fmt.Sprintf("gpu { deserved = %s + local.moved }", deserved)
}

// OverPoolHCL is the desired file that gives the department of cell 0's
// first clean move (the one with the largest h100 share) enough more h100
// cards that the departments are guaranteed 8 cards more than the pool
// has. Nothing else changes, so the pool's capacity is the only error.
func (t *Tenancy) OverPoolHCL() []byte {
	moves := t.Moves()
	if len(moves) == 0 || moves[0].Cell != 0 {
		panic("gentenancy: cell 0 has no department to grow")
	}
	m := moves[0]
	pool := t.Pools[0]
	total := Half(0)
	for _, d := range t.Departments {
		for _, q := range d.Queues {
			if q.Pool == pool.Name {
				total += q.Deserved
			}
		}
	}
	over := Cards(8)
	more := Cards(pool.Cards()) - total + over
	var b bytes.Buffer
	comment(&b, fmt.Sprintf("%s asks for %s more H100 cards for a new pre-training run, without taking them from anyone.", m.To, more))
	b.WriteString("#\n")
	comment(&b, fmt.Sprintf("The %s pool has %d cards (%d nodes x %d) and its departments are already guaranteed %s of them. With %s more for %s they would be guaranteed %s: %s cards more than the pool has. The cluster would accept this, and the guarantees could not all be met; krmplan refuses to render it.",
		pool.Name, pool.Cards(), pool.Nodes, CardsPerNode, total, more, m.To, total+more, over))
	b.WriteString("\n")
	fmt.Fprintf(&b, "department %q {\n  queue %q {\n", m.To, pool.Name)
	if m.ToLimit != Unlimited && m.ToLimit < m.ToDeserved+more {
		fmt.Fprintf(&b, "    gpu = { deserved = %s + %s, limit = %s }\n", m.ToDeserved, more, m.ToDeserved+more)
	} else {
		fmt.Fprintf(&b, "    gpu { deserved = %s + %s }\n", m.ToDeserved, more)
	}
	b.WriteString("  }\n}\n")
	return b.Bytes()
}

// comment writes text as "# " comment lines of at most 78 columns.
func comment(b *bytes.Buffer, text string) {
	line := "#"
	for _, word := range strings.Fields(text) {
		if len(line)+1+len(word) > 78 {
			b.WriteString(line + "\n")
			line = "#"
		}
		line += " " + word
	}
	b.WriteString(line + "\n")
}

// The file names of a generated demo, as examples/demo holds them.
const (
	TenancyFile     = "tenancy.yaml"
	ClusterDataFile = "cluster-data.json"
	OverPoolFile    = "over-the-pool.hcl"
	MoveFile        = "move-h100-cards.hcl"
)

// Files returns the demo's files of t by name: the tenancy, its cluster
// data, the failing desired file (cell 0 over its h100 pool) and the clean
// one (a move in every cell).
func Files(t *Tenancy) map[string][]byte {
	return map[string][]byte{
		TenancyFile:     t.YAML(),
		ClusterDataFile: t.ClusterDataJSON(),
		OverPoolFile:    t.OverPoolHCL(),
		MoveFile:        t.MoveHCL(0),
	}
}
