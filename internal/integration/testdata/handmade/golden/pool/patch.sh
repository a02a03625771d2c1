#!/bin/sh
# krmplan patch script for plan PLANID
# snapshot: git $WORK/repo at HEAD (commit COMMIT)
# cluster: every kubectl call runs with --context envtest (--context at render)
# 6 steps in phases (new node pools, shrinking projects, shrinking departments,
# growing departments, growing projects); every intermediate state was
# verified against the checks. Each patch first tests the values it changes:
# if one changed since the snapshot, kubectl refuses that step, and the script
# stops and says which value changed, which steps were applied and how to go on.
# Exit code: 0 every step applied; 10+N step N failed (250 for a step past 239); 2 an argument given (it takes none).
# Removals go around those phases: removing projects and project queues
# first; removing renamed projects, departments and department queues, then
# node pools last, once nothing is left on them.
# New objects get the annotation krmplan/plan=<plan id>: the rollback
# script (pool.rollback.sh) deletes only those.
# A deletion first tests the object as read (a server dry run), then deletes it
# with its uid as precondition, after a dry run: a namesake is never deleted.
set -u

krmplan_total=6
krmplan_replan='krmplan snapshot --context '\''envtest'\'' -o state.json, then krmplan plan '\''pool.hcl'\'' --state state.json --out plan.json (the desired file as the plan recorded it, from the folder krmplan plan ran in)'
krmplan_rollback=''\''pool.rollback.sh'\'''
case $0 in */*) krmplan_rollback="${0%/*}/$krmplan_rollback" ;; esac

krmplan_kubectl() { kubectl --context 'envtest' "$@"; }

krmplan_say() {
	printf 'krmplan: %s\n' "$*" >&2
}

krmplan_exit() {
	krmplan_code=$(($1 <= 239 ? 10 + $1 : 250))
	krmplan_say "stopped at step $1/$krmplan_total: exit code $krmplan_code"
	exit "$krmplan_code"
}

krmplan_guards() {
	krmplan_object=$1 krmplan_res=$2 krmplan_name=$3
	shift 3
	if ! krmplan_kubectl patch "$krmplan_res" "$krmplan_name" --type=json --dry-run=server -p '[{"op":"test","path":"/apiVersion","value":"kai.resources/v1alpha1"}]' >/dev/null 2>&1; then
		krmplan_say "  kubectl cannot patch $krmplan_object even in a dry run: it is gone, or the cluster refuses this user; kubectl's message above says which"
		return 0
	fi
	krmplan_changed=0
	while [ $# -ge 3 ]; do
		if ! krmplan_kubectl patch "$krmplan_res" "$krmplan_name" --type=json --dry-run=server -p "$1" >/dev/null 2>&1; then
			krmplan_now=$(krmplan_kubectl get "$krmplan_res" "$krmplan_name" -o "jsonpath=$2" 2>/dev/null | LC_ALL=C tr -c '[:print:]' '?')
			krmplan_say "  $3, the cluster holds ${krmplan_now:-nothing there}"
			krmplan_changed=$((krmplan_changed + 1))
		fi
		shift 3
	done
	if [ "$krmplan_changed" -eq 0 ]; then
		krmplan_say "  every value it tests is still as expected: the cause is kubectl's message above, not a changed value"
	fi
}

krmplan_absent() {
	if krmplan_now=$(krmplan_kubectl get "$2" "$3" --ignore-not-found -o name 2>/dev/null); then
		if [ -n "$krmplan_now" ]; then
			krmplan_say "  $1 exists: someone created it since the snapshot"
		else
			krmplan_say "  $1 does not exist yet: the cause is kubectl's message above"
		fi
	else
		krmplan_say "  kubectl cannot read $1: kubectl's message above says why"
	fi
}

krmplan_steps() {
	if [ "$1" -eq "$2" ]; then
		printf 'step %s' "$1"
	else
		printf 'steps %s to %s' "$1" "$2"
	fi
}

if [ $# -gt 0 ]; then
	krmplan_say "usage: sh $0: the patch script takes no argument (it applies every step; its rollback takes N)"
	exit 2
fi

krmplan_failed() {
	if [ "$1" -gt 1 ]; then
		krmplan_say "applied: $(krmplan_steps 1 $(($1 - 1))) of $krmplan_total; not applied: $(krmplan_steps "$1" "$krmplan_total") (a step is applied whole or not at all)"
	else
		krmplan_say "applied: nothing; not applied: $(krmplan_steps 1 "$krmplan_total")"
	fi
	if [ "$1" -gt 1 ]; then
		krmplan_say "two ways on:"
		krmplan_say "  - plan again from what the cluster holds now (the new plan holds only what is left to change): $krmplan_replan"
		krmplan_say "  - or undo what was applied, with the rollback script rendered with this one: sh $krmplan_rollback $(($1 - 1))"
	else
		krmplan_say "the way on: plan again from what the cluster holds now: $krmplan_replan"
	fi
	krmplan_exit "$1"
}

krmplan_delete_checks() {
	krmplan_uid=$(krmplan_kubectl get "$1" "$2" --ignore-not-found -o 'jsonpath={.metadata.uid}') || return 1
	if [ -z "$krmplan_uid" ]; then
		return 0
	fi
	case $krmplan_uid in
	*[!0-9a-f-]*)
		krmplan_say "  $1/$2 has a uid that is not a UUID: not deleted"
		return 1
		;;
	esac
	krmplan_kubectl patch "$1" "$2" --type=json --dry-run=server -p "$4" >/dev/null || return 1
	printf '{"apiVersion":"v1","dryRun":["All"],"kind":"DeleteOptions","preconditions":{"uid":"%s"}}\n' "$krmplan_uid" |
		krmplan_kubectl delete --raw "$3" -f - >/dev/null
}

krmplan_delete() {
	krmplan_delete_checks "$@" || return 1
	if [ -z "$krmplan_uid" ]; then
		krmplan_say "  $1/$2 does not exist: nothing to delete"
		return 0
	fi
	printf '{"apiVersion":"v1","kind":"DeleteOptions","preconditions":{"uid":"%s"}}\n' "$krmplan_uid" |
		krmplan_kubectl delete --raw "$3" -f - >/dev/null || return 1
	printf '%s/%s deleted\n' "$1" "$2"
}

# 1/6 removing projects and project queues: Project hm-batch
krmplan_say 'step 1/6: removing projects and project queues: Project hm-batch'
krmplan_delete projects.kai.resources hm-batch /apis/kai.resources/v1alpha1/projects/hm-batch '[{"op":"test","path":"/spec/parent","value":"hm-legacy"},{"op":"test","path":"/spec/queues/0/name","value":"hm-batch-a100"},{"op":"test","path":"/spec/queues/0/nodepool","value":"hm-a100"},{"op":"test","path":"/spec/queues/0/resources/gpu/deserved","value":2},{"op":"test","path":"/spec/queues/0/resources/gpu/limit","value":2},{"op":"test","path":"/spec/queues/0/resources/gpu/overQuotaWeight","value":1},{"op":"test","path":"/spec/queues/0/resources/cpu/deserved","value":-1},{"op":"test","path":"/spec/queues/0/resources/cpu/limit","value":-1},{"op":"test","path":"/spec/queues/0/resources/cpu/overQuotaWeight","value":1},{"op":"test","path":"/spec/queues/0/resources/memory/deserved","value":-1},{"op":"test","path":"/spec/queues/0/resources/memory/limit","value":-1},{"op":"test","path":"/spec/queues/0/resources/memory/overQuotaWeight","value":1}]'
if [ $? -ne 0 ]; then
	krmplan_say 'step 1/6 failed: kubectl refused the delete of Project hm-batch'
	krmplan_guards 'Project hm-batch' projects.kai.resources hm-batch \
		'[{"op":"test","path":"/spec/parent","value":"hm-legacy"}]' '{.spec.parent}' 'changed since the snapshot: parent of project hm-batch (/spec/parent): the plan read hm-legacy' \
		'[{"op":"test","path":"/spec/queues/0/name","value":"hm-batch-a100"}]' '{.spec.queues[0].name}' 'changed since the snapshot: the name of queue 0 (/spec/queues/0/name): the plan read hm-batch-a100' \
		'[{"op":"test","path":"/spec/queues/0/nodepool","value":"hm-a100"}]' '{.spec.queues[0].nodepool}' 'changed since the snapshot: nodepool of queue hm-batch-a100 (/spec/queues/0/nodepool): the plan read hm-a100' \
		'[{"op":"test","path":"/spec/queues/0/resources/gpu/deserved","value":2}]' '{.spec.queues[0].resources.gpu.deserved}' 'changed since the snapshot: gpu.deserved of queue hm-batch-a100 (/spec/queues/0/resources/gpu/deserved): the plan read 2' \
		'[{"op":"test","path":"/spec/queues/0/resources/gpu/limit","value":2}]' '{.spec.queues[0].resources.gpu.limit}' 'changed since the snapshot: gpu.limit of queue hm-batch-a100 (/spec/queues/0/resources/gpu/limit): the plan read 2' \
		'[{"op":"test","path":"/spec/queues/0/resources/gpu/overQuotaWeight","value":1}]' '{.spec.queues[0].resources.gpu.overQuotaWeight}' 'changed since the snapshot: gpu.overQuotaWeight of queue hm-batch-a100 (/spec/queues/0/resources/gpu/overQuotaWeight): the plan read 1' \
		'[{"op":"test","path":"/spec/queues/0/resources/cpu/deserved","value":-1}]' '{.spec.queues[0].resources.cpu.deserved}' 'changed since the snapshot: cpu.deserved of queue hm-batch-a100 (/spec/queues/0/resources/cpu/deserved): the plan read -1' \
		'[{"op":"test","path":"/spec/queues/0/resources/cpu/limit","value":-1}]' '{.spec.queues[0].resources.cpu.limit}' 'changed since the snapshot: cpu.limit of queue hm-batch-a100 (/spec/queues/0/resources/cpu/limit): the plan read -1' \
		'[{"op":"test","path":"/spec/queues/0/resources/cpu/overQuotaWeight","value":1}]' '{.spec.queues[0].resources.cpu.overQuotaWeight}' 'changed since the snapshot: cpu.overQuotaWeight of queue hm-batch-a100 (/spec/queues/0/resources/cpu/overQuotaWeight): the plan read 1' \
		'[{"op":"test","path":"/spec/queues/0/resources/memory/deserved","value":-1}]' '{.spec.queues[0].resources.memory.deserved}' 'changed since the snapshot: memory.deserved of queue hm-batch-a100 (/spec/queues/0/resources/memory/deserved): the plan read -1' \
		'[{"op":"test","path":"/spec/queues/0/resources/memory/limit","value":-1}]' '{.spec.queues[0].resources.memory.limit}' 'changed since the snapshot: memory.limit of queue hm-batch-a100 (/spec/queues/0/resources/memory/limit): the plan read -1' \
		'[{"op":"test","path":"/spec/queues/0/resources/memory/overQuotaWeight","value":1}]' '{.spec.queues[0].resources.memory.overQuotaWeight}' 'changed since the snapshot: memory.overQuotaWeight of queue hm-batch-a100 (/spec/queues/0/resources/memory/overQuotaWeight): the plan read 1'
	krmplan_failed 1
fi

# 2/6 removing projects and project queues: Project hm-nlp
krmplan_say 'step 2/6: removing projects and project queues: Project hm-nlp'
kubectl --context 'envtest' patch projects.kai.resources hm-nlp --type=json --field-manager=krmplan -p '[{"op":"test","path":"/spec/queues/1/name","value":"hm-nlp-a100"},{"op":"test","path":"/spec/queues/1/nodepool","value":"hm-a100"},{"op":"test","path":"/spec/queues/1/resources/gpu/deserved","value":2},{"op":"test","path":"/spec/queues/1/resources/gpu/limit","value":4},{"op":"test","path":"/spec/queues/1/resources/gpu/overQuotaWeight","value":1},{"op":"test","path":"/spec/queues/1/resources/cpu/deserved","value":-1},{"op":"test","path":"/spec/queues/1/resources/cpu/limit","value":-1},{"op":"test","path":"/spec/queues/1/resources/cpu/overQuotaWeight","value":1},{"op":"test","path":"/spec/queues/1/resources/memory/deserved","value":-1},{"op":"test","path":"/spec/queues/1/resources/memory/limit","value":-1},{"op":"test","path":"/spec/queues/1/resources/memory/overQuotaWeight","value":1},{"op":"remove","path":"/spec/queues/1"}]'
if [ $? -ne 0 ]; then
	krmplan_say 'step 2/6 failed: kubectl refused the patch of Project hm-nlp'
	krmplan_guards 'Project hm-nlp' projects.kai.resources hm-nlp \
		'[{"op":"test","path":"/spec/queues/1/name","value":"hm-nlp-a100"}]' '{.spec.queues[1].name}' 'changed since the snapshot: the name of queue 1 (/spec/queues/1/name): the plan read hm-nlp-a100' \
		'[{"op":"test","path":"/spec/queues/1/nodepool","value":"hm-a100"}]' '{.spec.queues[1].nodepool}' 'changed since the snapshot: nodepool of queue hm-nlp-a100 (/spec/queues/1/nodepool): the plan read hm-a100' \
		'[{"op":"test","path":"/spec/queues/1/resources/gpu/deserved","value":2}]' '{.spec.queues[1].resources.gpu.deserved}' 'changed since the snapshot: gpu.deserved of queue hm-nlp-a100 (/spec/queues/1/resources/gpu/deserved): the plan read 2' \
		'[{"op":"test","path":"/spec/queues/1/resources/gpu/limit","value":4}]' '{.spec.queues[1].resources.gpu.limit}' 'changed since the snapshot: gpu.limit of queue hm-nlp-a100 (/spec/queues/1/resources/gpu/limit): the plan read 4' \
		'[{"op":"test","path":"/spec/queues/1/resources/gpu/overQuotaWeight","value":1}]' '{.spec.queues[1].resources.gpu.overQuotaWeight}' 'changed since the snapshot: gpu.overQuotaWeight of queue hm-nlp-a100 (/spec/queues/1/resources/gpu/overQuotaWeight): the plan read 1' \
		'[{"op":"test","path":"/spec/queues/1/resources/cpu/deserved","value":-1}]' '{.spec.queues[1].resources.cpu.deserved}' 'changed since the snapshot: cpu.deserved of queue hm-nlp-a100 (/spec/queues/1/resources/cpu/deserved): the plan read -1' \
		'[{"op":"test","path":"/spec/queues/1/resources/cpu/limit","value":-1}]' '{.spec.queues[1].resources.cpu.limit}' 'changed since the snapshot: cpu.limit of queue hm-nlp-a100 (/spec/queues/1/resources/cpu/limit): the plan read -1' \
		'[{"op":"test","path":"/spec/queues/1/resources/cpu/overQuotaWeight","value":1}]' '{.spec.queues[1].resources.cpu.overQuotaWeight}' 'changed since the snapshot: cpu.overQuotaWeight of queue hm-nlp-a100 (/spec/queues/1/resources/cpu/overQuotaWeight): the plan read 1' \
		'[{"op":"test","path":"/spec/queues/1/resources/memory/deserved","value":-1}]' '{.spec.queues[1].resources.memory.deserved}' 'changed since the snapshot: memory.deserved of queue hm-nlp-a100 (/spec/queues/1/resources/memory/deserved): the plan read -1' \
		'[{"op":"test","path":"/spec/queues/1/resources/memory/limit","value":-1}]' '{.spec.queues[1].resources.memory.limit}' 'changed since the snapshot: memory.limit of queue hm-nlp-a100 (/spec/queues/1/resources/memory/limit): the plan read -1' \
		'[{"op":"test","path":"/spec/queues/1/resources/memory/overQuotaWeight","value":1}]' '{.spec.queues[1].resources.memory.overQuotaWeight}' 'changed since the snapshot: memory.overQuotaWeight of queue hm-nlp-a100 (/spec/queues/1/resources/memory/overQuotaWeight): the plan read 1'
	krmplan_failed 2
fi

# 3/6 removing projects and project queues: Project hm-vision
krmplan_say 'step 3/6: removing projects and project queues: Project hm-vision'
kubectl --context 'envtest' patch projects.kai.resources hm-vision --type=json --field-manager=krmplan -p '[{"op":"test","path":"/spec/queues/1/name","value":"hm-vision-a100"},{"op":"test","path":"/spec/queues/1/nodepool","value":"hm-a100"},{"op":"test","path":"/spec/queues/1/resources/gpu/deserved","value":1},{"op":"test","path":"/spec/queues/1/resources/gpu/limit","value":2},{"op":"test","path":"/spec/queues/1/resources/gpu/overQuotaWeight","value":1},{"op":"test","path":"/spec/queues/1/resources/cpu/deserved","value":-1},{"op":"test","path":"/spec/queues/1/resources/cpu/limit","value":-1},{"op":"test","path":"/spec/queues/1/resources/cpu/overQuotaWeight","value":1},{"op":"test","path":"/spec/queues/1/resources/memory/deserved","value":-1},{"op":"test","path":"/spec/queues/1/resources/memory/limit","value":-1},{"op":"test","path":"/spec/queues/1/resources/memory/overQuotaWeight","value":1},{"op":"remove","path":"/spec/queues/1"}]'
if [ $? -ne 0 ]; then
	krmplan_say 'step 3/6 failed: kubectl refused the patch of Project hm-vision'
	krmplan_guards 'Project hm-vision' projects.kai.resources hm-vision \
		'[{"op":"test","path":"/spec/queues/1/name","value":"hm-vision-a100"}]' '{.spec.queues[1].name}' 'changed since the snapshot: the name of queue 1 (/spec/queues/1/name): the plan read hm-vision-a100' \
		'[{"op":"test","path":"/spec/queues/1/nodepool","value":"hm-a100"}]' '{.spec.queues[1].nodepool}' 'changed since the snapshot: nodepool of queue hm-vision-a100 (/spec/queues/1/nodepool): the plan read hm-a100' \
		'[{"op":"test","path":"/spec/queues/1/resources/gpu/deserved","value":1}]' '{.spec.queues[1].resources.gpu.deserved}' 'changed since the snapshot: gpu.deserved of queue hm-vision-a100 (/spec/queues/1/resources/gpu/deserved): the plan read 1' \
		'[{"op":"test","path":"/spec/queues/1/resources/gpu/limit","value":2}]' '{.spec.queues[1].resources.gpu.limit}' 'changed since the snapshot: gpu.limit of queue hm-vision-a100 (/spec/queues/1/resources/gpu/limit): the plan read 2' \
		'[{"op":"test","path":"/spec/queues/1/resources/gpu/overQuotaWeight","value":1}]' '{.spec.queues[1].resources.gpu.overQuotaWeight}' 'changed since the snapshot: gpu.overQuotaWeight of queue hm-vision-a100 (/spec/queues/1/resources/gpu/overQuotaWeight): the plan read 1' \
		'[{"op":"test","path":"/spec/queues/1/resources/cpu/deserved","value":-1}]' '{.spec.queues[1].resources.cpu.deserved}' 'changed since the snapshot: cpu.deserved of queue hm-vision-a100 (/spec/queues/1/resources/cpu/deserved): the plan read -1' \
		'[{"op":"test","path":"/spec/queues/1/resources/cpu/limit","value":-1}]' '{.spec.queues[1].resources.cpu.limit}' 'changed since the snapshot: cpu.limit of queue hm-vision-a100 (/spec/queues/1/resources/cpu/limit): the plan read -1' \
		'[{"op":"test","path":"/spec/queues/1/resources/cpu/overQuotaWeight","value":1}]' '{.spec.queues[1].resources.cpu.overQuotaWeight}' 'changed since the snapshot: cpu.overQuotaWeight of queue hm-vision-a100 (/spec/queues/1/resources/cpu/overQuotaWeight): the plan read 1' \
		'[{"op":"test","path":"/spec/queues/1/resources/memory/deserved","value":-1}]' '{.spec.queues[1].resources.memory.deserved}' 'changed since the snapshot: memory.deserved of queue hm-vision-a100 (/spec/queues/1/resources/memory/deserved): the plan read -1' \
		'[{"op":"test","path":"/spec/queues/1/resources/memory/limit","value":-1}]' '{.spec.queues[1].resources.memory.limit}' 'changed since the snapshot: memory.limit of queue hm-vision-a100 (/spec/queues/1/resources/memory/limit): the plan read -1' \
		'[{"op":"test","path":"/spec/queues/1/resources/memory/overQuotaWeight","value":1}]' '{.spec.queues[1].resources.memory.overQuotaWeight}' 'changed since the snapshot: memory.overQuotaWeight of queue hm-vision-a100 (/spec/queues/1/resources/memory/overQuotaWeight): the plan read 1'
	krmplan_failed 3
fi

# 4/6 removing departments and department queues: Department hm-legacy
krmplan_say 'step 4/6: removing departments and department queues: Department hm-legacy'
krmplan_delete departments.kai.resources hm-legacy /apis/kai.resources/v1alpha1/departments/hm-legacy '[{"op":"test","path":"/spec/queues/0/name","value":"hm-legacy-a100"},{"op":"test","path":"/spec/queues/0/nodepool","value":"hm-a100"},{"op":"test","path":"/spec/queues/0/resources/gpu/deserved","value":2},{"op":"test","path":"/spec/queues/0/resources/gpu/limit","value":2},{"op":"test","path":"/spec/queues/0/resources/gpu/overQuotaWeight","value":1},{"op":"test","path":"/spec/queues/0/resources/cpu/deserved","value":-1},{"op":"test","path":"/spec/queues/0/resources/cpu/limit","value":-1},{"op":"test","path":"/spec/queues/0/resources/cpu/overQuotaWeight","value":1},{"op":"test","path":"/spec/queues/0/resources/memory/deserved","value":-1},{"op":"test","path":"/spec/queues/0/resources/memory/limit","value":-1},{"op":"test","path":"/spec/queues/0/resources/memory/overQuotaWeight","value":1}]'
if [ $? -ne 0 ]; then
	krmplan_say 'step 4/6 failed: kubectl refused the delete of Department hm-legacy'
	krmplan_guards 'Department hm-legacy' departments.kai.resources hm-legacy \
		'[{"op":"test","path":"/spec/queues/0/name","value":"hm-legacy-a100"}]' '{.spec.queues[0].name}' 'changed since the snapshot: the name of queue 0 (/spec/queues/0/name): the plan read hm-legacy-a100' \
		'[{"op":"test","path":"/spec/queues/0/nodepool","value":"hm-a100"}]' '{.spec.queues[0].nodepool}' 'changed since the snapshot: nodepool of queue hm-legacy-a100 (/spec/queues/0/nodepool): the plan read hm-a100' \
		'[{"op":"test","path":"/spec/queues/0/resources/gpu/deserved","value":2}]' '{.spec.queues[0].resources.gpu.deserved}' 'changed since the snapshot: gpu.deserved of queue hm-legacy-a100 (/spec/queues/0/resources/gpu/deserved): the plan read 2' \
		'[{"op":"test","path":"/spec/queues/0/resources/gpu/limit","value":2}]' '{.spec.queues[0].resources.gpu.limit}' 'changed since the snapshot: gpu.limit of queue hm-legacy-a100 (/spec/queues/0/resources/gpu/limit): the plan read 2' \
		'[{"op":"test","path":"/spec/queues/0/resources/gpu/overQuotaWeight","value":1}]' '{.spec.queues[0].resources.gpu.overQuotaWeight}' 'changed since the snapshot: gpu.overQuotaWeight of queue hm-legacy-a100 (/spec/queues/0/resources/gpu/overQuotaWeight): the plan read 1' \
		'[{"op":"test","path":"/spec/queues/0/resources/cpu/deserved","value":-1}]' '{.spec.queues[0].resources.cpu.deserved}' 'changed since the snapshot: cpu.deserved of queue hm-legacy-a100 (/spec/queues/0/resources/cpu/deserved): the plan read -1' \
		'[{"op":"test","path":"/spec/queues/0/resources/cpu/limit","value":-1}]' '{.spec.queues[0].resources.cpu.limit}' 'changed since the snapshot: cpu.limit of queue hm-legacy-a100 (/spec/queues/0/resources/cpu/limit): the plan read -1' \
		'[{"op":"test","path":"/spec/queues/0/resources/cpu/overQuotaWeight","value":1}]' '{.spec.queues[0].resources.cpu.overQuotaWeight}' 'changed since the snapshot: cpu.overQuotaWeight of queue hm-legacy-a100 (/spec/queues/0/resources/cpu/overQuotaWeight): the plan read 1' \
		'[{"op":"test","path":"/spec/queues/0/resources/memory/deserved","value":-1}]' '{.spec.queues[0].resources.memory.deserved}' 'changed since the snapshot: memory.deserved of queue hm-legacy-a100 (/spec/queues/0/resources/memory/deserved): the plan read -1' \
		'[{"op":"test","path":"/spec/queues/0/resources/memory/limit","value":-1}]' '{.spec.queues[0].resources.memory.limit}' 'changed since the snapshot: memory.limit of queue hm-legacy-a100 (/spec/queues/0/resources/memory/limit): the plan read -1' \
		'[{"op":"test","path":"/spec/queues/0/resources/memory/overQuotaWeight","value":1}]' '{.spec.queues[0].resources.memory.overQuotaWeight}' 'changed since the snapshot: memory.overQuotaWeight of queue hm-legacy-a100 (/spec/queues/0/resources/memory/overQuotaWeight): the plan read 1'
	krmplan_failed 4
fi

# 5/6 removing departments and department queues: Department hm-research
krmplan_say 'step 5/6: removing departments and department queues: Department hm-research'
kubectl --context 'envtest' patch departments.kai.resources hm-research --type=json --field-manager=krmplan -p '[{"op":"test","path":"/spec/queues/1/name","value":"hm-research-a100"},{"op":"test","path":"/spec/queues/1/nodepool","value":"hm-a100"},{"op":"test","path":"/spec/queues/1/resources/gpu/deserved","value":4},{"op":"test","path":"/spec/queues/1/resources/gpu/limit","value":4},{"op":"test","path":"/spec/queues/1/resources/gpu/overQuotaWeight","value":1},{"op":"test","path":"/spec/queues/1/resources/cpu/deserved","value":-1},{"op":"test","path":"/spec/queues/1/resources/cpu/limit","value":-1},{"op":"test","path":"/spec/queues/1/resources/cpu/overQuotaWeight","value":1},{"op":"test","path":"/spec/queues/1/resources/memory/deserved","value":-1},{"op":"test","path":"/spec/queues/1/resources/memory/limit","value":-1},{"op":"test","path":"/spec/queues/1/resources/memory/overQuotaWeight","value":1},{"op":"remove","path":"/spec/queues/1"}]'
if [ $? -ne 0 ]; then
	krmplan_say 'step 5/6 failed: kubectl refused the patch of Department hm-research'
	krmplan_guards 'Department hm-research' departments.kai.resources hm-research \
		'[{"op":"test","path":"/spec/queues/1/name","value":"hm-research-a100"}]' '{.spec.queues[1].name}' 'changed since the snapshot: the name of queue 1 (/spec/queues/1/name): the plan read hm-research-a100' \
		'[{"op":"test","path":"/spec/queues/1/nodepool","value":"hm-a100"}]' '{.spec.queues[1].nodepool}' 'changed since the snapshot: nodepool of queue hm-research-a100 (/spec/queues/1/nodepool): the plan read hm-a100' \
		'[{"op":"test","path":"/spec/queues/1/resources/gpu/deserved","value":4}]' '{.spec.queues[1].resources.gpu.deserved}' 'changed since the snapshot: gpu.deserved of queue hm-research-a100 (/spec/queues/1/resources/gpu/deserved): the plan read 4' \
		'[{"op":"test","path":"/spec/queues/1/resources/gpu/limit","value":4}]' '{.spec.queues[1].resources.gpu.limit}' 'changed since the snapshot: gpu.limit of queue hm-research-a100 (/spec/queues/1/resources/gpu/limit): the plan read 4' \
		'[{"op":"test","path":"/spec/queues/1/resources/gpu/overQuotaWeight","value":1}]' '{.spec.queues[1].resources.gpu.overQuotaWeight}' 'changed since the snapshot: gpu.overQuotaWeight of queue hm-research-a100 (/spec/queues/1/resources/gpu/overQuotaWeight): the plan read 1' \
		'[{"op":"test","path":"/spec/queues/1/resources/cpu/deserved","value":-1}]' '{.spec.queues[1].resources.cpu.deserved}' 'changed since the snapshot: cpu.deserved of queue hm-research-a100 (/spec/queues/1/resources/cpu/deserved): the plan read -1' \
		'[{"op":"test","path":"/spec/queues/1/resources/cpu/limit","value":-1}]' '{.spec.queues[1].resources.cpu.limit}' 'changed since the snapshot: cpu.limit of queue hm-research-a100 (/spec/queues/1/resources/cpu/limit): the plan read -1' \
		'[{"op":"test","path":"/spec/queues/1/resources/cpu/overQuotaWeight","value":1}]' '{.spec.queues[1].resources.cpu.overQuotaWeight}' 'changed since the snapshot: cpu.overQuotaWeight of queue hm-research-a100 (/spec/queues/1/resources/cpu/overQuotaWeight): the plan read 1' \
		'[{"op":"test","path":"/spec/queues/1/resources/memory/deserved","value":-1}]' '{.spec.queues[1].resources.memory.deserved}' 'changed since the snapshot: memory.deserved of queue hm-research-a100 (/spec/queues/1/resources/memory/deserved): the plan read -1' \
		'[{"op":"test","path":"/spec/queues/1/resources/memory/limit","value":-1}]' '{.spec.queues[1].resources.memory.limit}' 'changed since the snapshot: memory.limit of queue hm-research-a100 (/spec/queues/1/resources/memory/limit): the plan read -1' \
		'[{"op":"test","path":"/spec/queues/1/resources/memory/overQuotaWeight","value":1}]' '{.spec.queues[1].resources.memory.overQuotaWeight}' 'changed since the snapshot: memory.overQuotaWeight of queue hm-research-a100 (/spec/queues/1/resources/memory/overQuotaWeight): the plan read 1'
	krmplan_failed 5
fi

# 6/6 removing node pools: NodePool hm-a100
krmplan_say 'step 6/6: removing node pools: NodePool hm-a100'
krmplan_delete nodepools.kai.resources hm-a100 /apis/kai.resources/v1alpha1/nodepools/hm-a100 '[{"op":"test","path":"/spec/labelKey","value":"hm.example.com/gpu-class"},{"op":"test","path":"/spec/labelValue","value":"100"}]'
if [ $? -ne 0 ]; then
	krmplan_say 'step 6/6 failed: kubectl refused the delete of NodePool hm-a100'
	krmplan_guards 'NodePool hm-a100' nodepools.kai.resources hm-a100 \
		'[{"op":"test","path":"/spec/labelKey","value":"hm.example.com/gpu-class"}]' '{.spec.labelKey}' 'changed since the snapshot: labelKey of node pool hm-a100 (/spec/labelKey): the plan read hm.example.com/gpu-class' \
		'[{"op":"test","path":"/spec/labelValue","value":"100"}]' '{.spec.labelValue}' 'changed since the snapshot: labelValue of node pool hm-a100 (/spec/labelValue): the plan read 100'
	krmplan_failed 6
fi

krmplan_say 'all 6 steps applied'
exit 0
