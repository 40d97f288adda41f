package fiojob

import (
	"slices"
	"strings"

	"stortest.dev/fio"
	"stortest.dev/workload"
)

// fio 3.33's names beyond the options stortest accepts, so that a job file
// written for fio is refused with the option or engine named
// (ErrUnsupported) rather than as a typo (ErrUnknownOption). They come
// from the installed fio 3.33: fio --cmdhelp=all with each option's alias
// (--cmdhelp=<option>), the engine options of --enghelp=<engine>, and for
// the engines Debian's build leaves out, the engines' option tables in
// fio 3.33's sources. TestFioNamesMatchFio checks them against fio when it
// is installed.

// fioEngines are fio 3.33's ioengine names.
var fioEngines = strings.Fields(`cpuio dev-dax dfs e4defrag exec falloc filecreate filedelete
filestat ftruncate gfapi gfapi_async http ime_aio ime_psync ime_psyncv io_uring io_uring_cmd
libaio libcufile libhdfs libiscsi libpmem librpma_apm_client librpma_apm_server
librpma_gpspm_client librpma_gpspm_server libzbc mmap mtd nbd net netsplice nfs null pmemblk
posixaio psync pvsync pvsync2 rados rbd rdma sg solarisaio splice sync vsync windowsaio xnvme`)

// fioEngineOptions maps each engine-specific fio option to the engines
// that take it.
var fioEngineOptions = func() map[string][]string {
	m := map[string][]string{}
	for _, f := range strings.Fields(`arguments:exec bindname:rdma brick:gfapi,gfapi_async
busy_poll:rados,rbd busy_wait_polling:librpma_apm_client chunk_size:dfs clientname:rados,rbd
clustername:rados,rbd cmd_type:io_uring,io_uring_cmd cmdprio:io_uring,io_uring_cmd,libaio
cmdprio_bssplit:io_uring,io_uring_cmd,libaio cmdprio_class:io_uring,io_uring_cmd,libaio
cmdprio_percentage:io_uring,io_uring_cmd,libaio conf:rados cont:dfs cpuchunks:cpuio
cpuload:cpuio cpumode:cpuio cuda_io:libcufile direct_write_to_pmem:librpma_apm_client
donorname:e4defrag exit_on_io_done:cpuio fixedbufs:io_uring,io_uring_cmd
force_async:io_uring,io_uring_cmd gpu_dev_ids:libcufile grace_time:exec
hdfs_use_direct:libhdfs hdfsdirectory:libhdfs hipri:io_uring,io_uring_cmd,pvsync2,sg
hipri_percentage:pvsync2 hostname:net,netsplice,rdma http_host:http http_mode:http
http_pass:http http_s3_key:http http_s3_keyid:http http_s3_region:http
http_s3_sse_customer_algorithm:http http_s3_sse_customer_key:http
http_s3_storage_class:http http_swift_auth_token:http http_user:http http_verbose:http
https:http initiator:libiscsi inplace:e4defrag interface:net,netsplice
listen:net,netsplice mss:net,netsplice namenode:libhdfs nfs_url:nfs
no_completion_thread:windowsaio nodelay:net,netsplice nonvectored:io_uring,io_uring_cmd
nowait:io_uring,io_uring_cmd,libaio,pvsync2 object_class:dfs pingpong:net,netsplice
pool:rados,rbd port:net,netsplice,rdma program:exec protocol:net,netsplice rbdname:rbd
readfua:sg registerfiles:io_uring,io_uring_cmd serverip:librpma_apm_client
sg_write_mode:sg single-instance:gfapi,gfapi_async single_instance:libhdfs skip_bad:mtd
sqthread_poll:io_uring,io_uring_cmd sqthread_poll_cpu:io_uring,io_uring_cmd
stat_type:filestat std_redirect:exec stream_id:sg svcl:dfs thp:mmap touch_objects:rados
ttl:net,netsplice uncached:io_uring,io_uring_cmd,pvsync2 uri:nbd userspace_reap:libaio
verb:rdma volume:gfapi,gfapi_async window_size:net,netsplice writefua:sg xnvme_admin:xnvme
xnvme_async:xnvme xnvme_be:xnvme xnvme_dev_nsid:xnvme xnvme_iovec:xnvme xnvme_sync:xnvme`) {
		opt, engines, _ := strings.Cut(f, ":")
		m[opt] = strings.Split(engines, ",")
	}
	return m
}()

// unsupportedFio returns the refusal of a fio 3.33 option that stortest
// does not accept, naming the engines when the option belongs to engines
// stortest does not have, or nil when key is not a fio option.
func unsupportedFio(key string) error {
	if engines, ok := fioEngineOptions[key]; ok {
		if !slices.ContainsFunc(engines, func(e string) bool { return slices.Contains(workload.Engines, e) }) {
			return workload.NewMsgError("fio option "+key+" (ioengine "+workload.OrList(engines)+") is not supported by stortest", workload.ErrUnsupported)
		}
		return workload.NewMsgError("fio option "+key+" is not supported by stortest", workload.ErrUnsupported)
	}
	// package fio knows every other name: fio's table with aliases,
	// nested and deprecated options (verifysort, iomem_align).
	if fio.IsOption(key) {
		return workload.NewMsgError("fio option "+key+" is not supported by stortest", workload.ErrUnsupported)
	}
	return nil
}

// unsupportedEngine returns the refusal of a fio 3.33 engine that stortest
// does not have, or nil.
func unsupportedEngine(name string) error {
	if slices.Contains(fioEngines, name) && !slices.Contains(workload.Engines, name) {
		return workload.NewMsgError("fio ioengine "+name+" is not supported by stortest (it has "+strings.Join(workload.Engines, ", ")+")", workload.ErrUnsupported)
	}
	return nil
}
