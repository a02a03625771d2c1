package planner

import (
	"github.com/krmplan/krmplan/planner/gitops"
	"github.com/krmplan/krmplan/planner/removal"
)

// Code is a finding's stable code, e.g. "projects-over-department".
type Code string

// The codes of the catalogue, by level as the README's Checks table lists
// them (Codes holds each one's level and meaning).
const (
	// Errors: they block render.
	CodeProjectsOverDepartment  Code = "projects-over-department"
	CodeUnlimitedUnderFinite    Code = "unlimited-under-finite"
	CodeDeservedOverLimit       Code = "deserved-over-limit"
	CodeNegativeValue           Code = "negative-value"
	CodeNegativeWeight          Code = "negative-weight"
	CodeUnknownPool             Code = "unknown-pool"
	CodeUnknownParent           Code = "unknown-parent"
	CodeDuplicateQueueName      Code = "duplicate-queue-name"
	CodeSharedNamespace         Code = "shared-namespace"
	CodeTwoQueuesOnePool        Code = "two-queues-one-pool"
	CodeDuplicateLabelPair      Code = "duplicate-label-pair"
	CodePoolOverCapacity        Code = "pool-over-capacity"
	CodeInvalidName             Code = "invalid-name"
	CodeDefaultPoolWithoutQueue Code = "default-pool-without-queue"
	CodeUnsafeOrder             Code = "unsafe-order"
	CodeServerDryRunRefused     Code = "server-dry-run-refused"
	CodeInvalidTenancy          Code = "invalid-tenancy"
	CodeDuplicateObject         Code = "duplicate-object"
	CodeRemovalBlocked          Code = removal.CodeBlocked
	CodeRemovalInUse            Code = removal.CodeInUse
	CodeRemovalOrphansQueues    Code = removal.CodeOrphansQueues
	CodeRenameQueueNameTaken    Code = "rename-queue-name-taken"
	CodeRenameChanged           Code = "rename-with-changes"

	// Warnings.
	CodeLimitOmitted                  Code = "limit-omitted"
	CodeProjectOutsideDepartment      Code = "project-outside-department"
	CodeProjectLimitOverDepartment    Code = "project-limit-over-department"
	CodeDepartmentLimitOverPool       Code = "department-limit-over-pool"
	CodeUsageOverLimit                Code = "usage-over-limit"
	CodeNonPreemptibleOverGuarantee   Code = "non-preemptible-over-guarantee"
	CodePoolCardsUnschedulable        Code = "pool-cards-unschedulable"
	CodeQueueNameTooLong              Code = "queue-name-too-long"
	CodeNamespaceMissing              Code = "namespace-missing"
	CodeNamespaceNotLabelled          Code = "namespace-not-labelled"
	CodeNamespaceLabelledOtherProject Code = "namespace-labelled-other-project"
	CodeNewPoolNoNodes                Code = "new-pool-no-nodes"
	CodeNewPoolNotManaged             Code = "new-pool-not-managed"
	CodeGitOpsOwned                   Code = gitops.CodeOwned
	CodeSingletonIgnored              Code = "singleton-ignored"
	CodeForcedRemoval                 Code = removal.CodeForced
	CodeRemovalNamespaceKept          Code = removal.CodeNamespaceKept
	CodeMovedProject                  Code = removal.CodeMoved
	CodeRenameNamespaceNotCarried     Code = "rename-namespace-not-carried"
	CodeQueueNameKept                 Code = removal.CodeQueueNameKept

	// Notes.
	CodeUnassignedShare   Code = "unassigned-share"
	CodeZeroWeight        Code = "zero-weight"
	CodeLiveQueueDiffers  Code = "live-queue-differs"
	CodeLiveQueueMissing  Code = "live-queue-missing"
	CodeUsageUnreadable   Code = "usage-unreadable"
	CodePoolCardsUnknown  Code = "pool-cards-unknown"
	CodeQueuesNotRead     Code = "queues-not-read"
	CodeNamespacesNotRead Code = "namespaces-not-read"
	CodeServerDryRun      Code = "server-dry-run"
	// Advisory notes (checks_advice.go).
	CodeUnitSlip                 Code = "unit-slip"
	CodePriorityWithoutGuarantee Code = "priority-without-guarantee"
	CodeManualOverride           Code = "manual-override"
	CodeKustomizePatch           Code = gitops.CodeKustomizePatch
	CodeRemovalUsageNotRead      Code = removal.CodeUsageNotRead
)

// CodeInfo is one row of the catalogue.
type CodeInfo struct {
	Code Code
	// Level is the level of the code's findings. pool-over-capacity alone
	// is made at a lower level too: a warning when the guarantees fit the
	// pool's cards but not those schedulable right now.
	Level Level
	// Meaning says in one line what a finding of the code means.
	Meaning string
}

// Codes is the catalogue of every code krmplan's findings carry: the
// checks', the step order's (unsafe-order), the server dry run's and the
// check command's own (invalid-tenancy, duplicate-object). The README's
// Checks table lists exactly these, at these levels (a test reads it).
var Codes = []CodeInfo{
	{CodeProjectsOverDepartment, LevelError, "a department's projects are guaranteed more of a resource on a pool than the department has"},
	{CodeUnlimitedUnderFinite, LevelError, "a project's guarantee is unlimited (-1) under a department whose guarantee is finite"},
	{CodeDeservedOverLimit, LevelError, "a queue's guarantee is above its own limit (an omitted limit is 0)"},
	{CodeNegativeValue, LevelError, "a deserved or a limit is negative and not -1 (unlimited)"},
	{CodeNegativeWeight, LevelError, "an overQuotaWeight is negative"},
	{CodeUnknownPool, LevelError, "a queue is on a node pool that does not exist; KRM's webhook rejects it"},
	{CodeUnknownParent, LevelError, "a project's parent department does not exist; KRM's webhook rejects it"},
	{CodeDuplicateQueueName, LevelError, "two queues have one KAI Queue name (as written, or derived from the owner for a queue without one): KRM gives the second a random suffix"},
	{CodeSharedNamespace, LevelError, "two projects have one namespace"},
	{CodeTwoQueuesOnePool, LevelError, "an object has two queues on one node pool; KRM's webhook rejects it"},
	{CodeDuplicateLabelPair, LevelError, "two node pools select the same label pair; KRM's webhook rejects the second"},
	{CodePoolOverCapacity, LevelError, "the gpu guarantees at the top of a pool are above its cards as KAI counts them (a warning when above only the cards schedulable now)"},
	{CodeInvalidName, LevelError, "a name, namespace or label is not valid for Kubernetes"},
	{CodeDefaultPoolWithoutQueue, LevelError, "a project's defaultNodePools names a pool it has no queue on; KRM's webhook rejects it"},
	{CodeUnsafeOrder, LevelError, "no order of the steps keeps every intermediate state within the checks"},
	{CodeServerDryRunRefused, LevelError, "the API server refused a step in a dry run"},
	{CodeInvalidTenancy, LevelError, "a tenancy file cannot be read (check)"},
	{CodeDuplicateObject, LevelError, "the tenancy files declare one object twice (check)"},
	{CodeRemovalBlocked, LevelError, "a removed department is still named by projects, or a removed node pool still has queues on it: KRM's finalizers hold the deletion"},
	{CodeRemovalInUse, LevelError, "a removed queue has workloads allocated to it (live usage), which stop being schedulable; force = true allows it"},
	{CodeRemovalOrphansQueues, LevelError, "a removed department queue still has project queues under it, which KAI's scheduler drops until KRM re-parents them; force = true allows it"},
	{CodeRenameQueueNameTaken, LevelError, "a plan between refs removes a project and adds one with its KAI Queue name: KRM suffixes the new Queue while the old one exists"},
	{CodeRenameChanged, LevelError, "a plan between refs renames a project (its queues and namespace) and changes its spec: rename in one pull request, change in the next"},

	{CodeLimitOmitted, LevelWarning, "a cpu or memory limit is omitted, which KRM reads as a ceiling of zero"},
	{CodeProjectOutsideDepartment, LevelWarning, "a project queue is on a pool where its department has none: a root queue outside any department"},
	{CodeProjectLimitOverDepartment, LevelWarning, "a project's limit is above its department's, which wins"},
	{CodeDepartmentLimitOverPool, LevelWarning, "a department's gpu limit is above its pool's cards"},
	{CodeUsageOverLimit, LevelWarning, "a queue uses more than its planned limit"},
	{CodeNonPreemptibleOverGuarantee, LevelWarning, "a queue's non-preemptible usage is above its planned guarantee"},
	{CodePoolCardsUnschedulable, LevelWarning, "some of a pool's cards are not schedulable right now (nodes not Ready, cordoned, under pressure, cards not allocatable)"},
	{CodeQueueNameTooLong, LevelWarning, "a queue name is over 58 characters: KRM gives its KAI Queue a random suffix"},
	{CodeNamespaceMissing, LevelWarning, "a project's namespace does not exist"},
	{CodeNamespaceNotLabelled, LevelWarning, "a project's namespace is not labelled for it"},
	{CodeNamespaceLabelledOtherProject, LevelWarning, "a project's namespace is labelled for another project"},
	{CodeNewPoolNoNodes, LevelWarning, "no node carries a new pool's label pair"},
	{CodeNewPoolNotManaged, LevelWarning, "a new pool's nodes are outside the ManagedNodesConfig"},
	{CodeGitOpsOwned, LevelWarning, "the plan changes an object Argo CD or Flux owns: a live patch is put back at the next sync"},
	{CodeSingletonIgnored, LevelWarning, "a ManagedNodesConfig or KRMConfig of another name than the one KRM reads: KRM ignores it"},
	{CodeForcedRemoval, LevelWarning, "a removal in use (removal-in-use, removal-orphans-queues) that force = true allows"},
	{CodeRemovalNamespaceKept, LevelWarning, "a removed project's namespace stays, still labelled for it, with its workloads"},
	{CodeMovedProject, LevelWarning, "a renamed project (moved block) is a create and a remove: its namespace carries over once relabelled, its workloads must move to the new queue names"},
	{CodeRenameNamespaceNotCarried, LevelWarning, "a plan between refs removes a project and adds one with its queues but another namespace: the namespace and its workloads do not carry over"},
	{CodeQueueNameKept, LevelWarning, "a plan (of desired.hcl or between refs) changes an existing queue entry's name: KRM keeps the existing Queue and its name"},

	{CodeUnassignedShare, LevelNote, "part of a department's guarantee is guaranteed to none of its projects"},
	{CodeZeroWeight, LevelNote, "an overQuotaWeight of 0 (or omitted) on a queue whose limit is above its guarantee"},
	{CodeLiveQueueDiffers, LevelNote, "the scheduler's Queue holds other numbers than the source"},
	{CodeLiveQueueMissing, LevelNote, "the scheduler has no Queue of a queue's name yet"},
	{CodeUsageUnreadable, LevelNote, "a Queue's usage is not a Kubernetes quantity, so it was not compared"},
	{CodePoolCardsUnknown, LevelNote, "the nodes were not read, so a pool's cards are unknown"},
	{CodeQueuesNotRead, LevelNote, "the scheduler's Queues were not read, so usage was not checked"},
	{CodeNamespacesNotRead, LevelNote, "the namespaces were not read, so they were not checked"},
	{CodeServerDryRun, LevelNote, "what the server dry run checked"},
	{CodeUnitSlip, LevelNote, "a cpu or memory value is about 1000 times off its siblings', as one in the wrong unit is (cores for millicores, GB for MB)"},
	{CodeKustomizePatch, LevelNote, "a kustomization among the tenancy files patches objects krmplan reads: the plan is of the files as written, not of what is applied"},
	{CodeManualOverride, LevelNote, "the scheduler's Queue carries KRM's manual-override label: its numbers are not the spec's"},
	{CodePriorityWithoutGuarantee, LevelNote, "a queue with a priority above 100 but a gpu guarantee of 0: it never reclaims cards, and non-preemptible work never runs in it"},
	{CodeRemovalUsageNotRead, LevelNote, "a removed queue's usage was not read (a git snapshot without the cluster), so what it stops is unknown"},
}

// Info returns the catalogue's row of c; ok is false for a code it lacks.
func (c Code) Info() (info CodeInfo, ok bool) {
	for _, i := range Codes {
		if i.Code == c {
			return i, true
		}
	}
	return CodeInfo{}, false
}
