package fio

import (
	"slices"
	"strings"
)

// Every name of fio 3.33's options, so that a job file written for fio
// can be told from one with a typo. They are the names and aliases of
// fio's option table (fio --cmdhelp=all lists the top-level names only;
// --cmdhelp=NAME shows each with its alias), the options of the
// engines (fio --enghelp=ENGINE, and the engines' tables in fio 3.33's
// sources for those a build may leave out), and the deprecated names fio
// still recognizes. TestOptionsMatchFio checks them against an installed
// fio.

// jobOptionNames are the options of fio's table and their aliases.
var jobOptionNames = strings.Fields(`
allow_file_create allow_mounted_write allrandrepeat atomic ba block_error_percentiles
blockalign blocksize blocksize_range blocksize_unaligned bs bs_is_seq_rand bs_unaligned
bsrange bssplit buffer_compress_chunk buffer_compress_percentage buffer_pattern buffered
bwavgtime cgroup cgroup_nodelete cgroup_weight clat_percentiles clocksource
continue_on_error cpumask cpus_allowed cpus_allowed_policy create_fsync create_on_open
create_only create_serialize dedupe_global dedupe_mode dedupe_percentage
dedupe_working_set_percentage description direct directory disable_bw
disable_bw_measurement disable_clat disable_lat disable_slat disk_util do_verify end_fsync
error_dump exec_postrun exec_prerun exit_what exitall exitall_on_error experimental_verify
fadvise_hint fallocate fdatasync file_append file_service_type filename filename_format
fileoffset filesize fill_device fill_fs flow flow_id flow_sleep fsync fsync_on_close gid
gpu_dev_id group_reporting gtod_cpu gtod_reduce hugepage-size ignore_error
ignore_zone_limits invalidate io_limit io_size io_submit_mode iodepth iodepth_batch
iodepth_batch_complete iodepth_batch_complete_max iodepth_batch_complete_min
iodepth_batch_submit iodepth_low ioengine iomem iomem_align iopsavgtime ioscheduler
job_max_open_zones kb_base lat_percentiles latency_percentile latency_run latency_target
latency_window lockfile lockmem log_alternate_epoch log_alternate_epoch_clock_id
log_avg_msec log_compression log_compression_cpus log_entries log_hist_coarseness
log_hist_msec log_max_value log_offset log_prio log_store_compressed log_unix_epoch loops
max_latency max_open_zones mem mem_align merge_blktrace_file merge_blktrace_iters
merge_blktrace_scalars name new_group nice norandommap nr_files nrfiles numa_cpu_nodes
numa_mem_policy number_ios numjobs offset offset_align offset_increment opendir openfiles
overwrite per_job_logs percentage_random percentile_list pre_read prio prioclass profile
ramp_time random_distribution random_generator randrepeat randseed rate rate_cycle
rate_ignore_thinktime rate_iops rate_iops_min rate_min rate_process ratecycle ratemin
read_beyond_wp read_iolog read_iolog_chunked readwrite refill_buffers replay_align
replay_no_stall replay_redirect replay_scale replay_skip replay_time_scale runtime rw
rw_sequencer rwmixread rwmixwrite scramble_buffers serialize_overlap significant_figures
size slat_percentiles softrandommap ss ss_dur ss_ramp startdelay stats steadystate
steadystate_duration steadystate_ramp_time stonewall sync sync_file_range thinktime
thinktime_blocks thinktime_blocks_type thinktime_iotime thinktime_spin thread time_based
timeout trim_backlog trim_backlog_batch trim_percentage trim_verify_zero uid
unified_rw_reporting unique_filename unit_base unlink unlink_each_loop verify verify_async
verify_async_cpus verify_backlog verify_backlog_batch verify_dump verify_fatal
verify_interval verify_offset verify_only verify_pattern verify_state_load
verify_state_save wait_for wait_for_previous write_barrier write_bw_log write_hint
write_hist_log write_iolog write_iops_log write_lat_log zero_buffers zone_reset_frequency
zone_reset_threshold zonecapacity zonemode zonerange zonesize zoneskip
`)

// engineOptionNames are the options of fio 3.33's I/O engines (a job
// takes them with the engine's ioengine), aliases included.
var engineOptionNames = strings.Fields(`
arguments bindname brick busy_poll busy_wait_polling chunck_size chunk_size clientname
clustername cmd_type cmdprio cmdprio_bssplit cmdprio_class cmdprio_percentage conf cont
cpuchunks cpuload cpumode cuda_io direct_write_to_pmem donorname exit_on_io_done fixedbufs
force_async gpu_dev_ids grace_time hdfs_use_direct hdfsdirectory hipri hipri_percentage
hostname http_host http_mode http_pass http_s3_key http_s3_keyid http_s3_region
http_s3_sse_customer_algorithm http_s3_sse_customer_key http_s3_storage_class
http_swift_auth_token http_user http_verbose https initiator inplace interface listen mss
namenode nfs_url no_completion_thread nodelay nonvectored nowait object_class pingpong pool
port program proto protocol rbdname readfua registerfiles serverip sg_write_mode
single-instance single_instance skip_bad sqthread_poll sqthread_poll_cpu stat_type
std_redirect stream_id svcl thp touch_objects ttl uncached uri userspace_reap verb volume
window_size writefua xnvme_admin xnvme_async xnvme_be xnvme_dev_nsid xnvme_iovec xnvme_sync
`)

// deprecatedOptionNames are names fio 3.33 recognizes and warns about
// ("Option X is deprecated"): it ignores verifysort, verifysort_nr and
// flow_watermark, and refuses percentage_sequential and rwmixcycle.
var deprecatedOptionNames = strings.Fields(`flow_watermark percentage_sequential rwmixcycle verifysort verifysort_nr`)

// commandLineOptionNames are fio 3.33's own command-line options
// (fio --help shows most), which are not job options; "profile" is
// both.
var commandLineOptionNames = strings.Fields(`
alloc-size append-terse aux-path bandwidth-log client cmdhelp cpuclock-test crctest
daemonize debug enghelp eta eta-interval eta-newline help idle-prof inflate-log latency-log
max-jobs memcpytest merge-blktrace-only minimal output output-format parse-only profile
readonly remote-config section server server-internal showcmd status-interval terse-version
trigger trigger-file trigger-remote trigger-timeout version warnings-fatal
`)

var (
	options    = setOf(jobOptionNames, engineOptionNames, deprecatedOptionNames)
	optionList = sortedKeys(options)
	cliOptions = setOf(commandLineOptionNames)
)

// Options returns every fio 3.33 job option name, aliases, engine
// options and deprecated names included, sorted.
func Options() []string { return slices.Clone(optionList) }

// IsOption reports whether name is a fio 3.33 job option name (one of
// Options).
func IsOption(name string) bool { return options[name] }

// IsEngineOption reports whether name is an option of one of fio's I/O
// engines rather than of fio itself.
func IsEngineOption(name string) bool { return slices.Contains(engineOptionNames, name) }

// IsCommandLineOption reports whether name (without its dashes) is one
// of fio 3.33's own command-line options, such as output-format, which
// are not job options.
func IsCommandLineOption(name string) bool { return cliOptions[name] }

func setOf(lists ...[]string) map[string]bool {
	m := map[string]bool{}
	for _, l := range lists {
		for _, s := range l {
			m[s] = true
		}
	}
	return m
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
