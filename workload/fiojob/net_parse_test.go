package fiojob

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"stortest.dev/workload"
)

// fio's examples/netio.fio and netio_multicast.fio read into the net
// options, hostname= being the job's filename (as fio's is), port+clone
// numbering left to the runner.
func TestParseFioNet(t *testing.T) {
	in := `[global]
ioengine=net
port=8888
protocol=tcp
bs=4k
size=100g
directory=/tmp

[receiver]
listen
rw=read

[sender]
hostname=localhost
startdelay=1
rw=write
nodelay
window_size=64k
mss=1400

[mc]
proto=udp
hostname=239.0.0.0
ttl=3
interface=127.0.0.1
pingpong=1
rw=read
`
	jobs, err := parseFile(strings.NewReader(in), "job.fio")
	if err != nil {
		t.Fatal(err)
	}
	type net struct {
		Filename, Proto, Interface            string
		Port, TTL, Window, MSS                int
		Listen, PingPong, NoDelay, NetListens bool
	}
	var got []net
	for _, j := range jobs {
		got = append(got, net{j.Filename, j.NetProtocol(), j.Interface, j.Port, j.NetTTL(), j.WindowSize, j.MSS,
			j.Listen, j.PingPong, j.NoDelay, j.NetListens()})
	}
	want := []net{
		{Proto: "tcp", Port: 8888, TTL: 1, Listen: true, NetListens: true},
		{Filename: "localhost", Proto: "tcp", Port: 8888, TTL: 1, Window: 64 << 10, MSS: 1400, NoDelay: true},
		{Filename: "239.0.0.0", Proto: "udp", Interface: "127.0.0.1", Port: 8888, TTL: 3, PingPong: true, NetListens: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("net options (-want +got):\n%s", diff)
	}
	// The job prints and reads back the same.
	for _, j := range jobs {
		back, err := parseFile(strings.NewReader(Format(j)), "back.fio")
		if err != nil {
			t.Fatalf("%s reads back: %v\n%s", j.Name, err, Format(j))
		}
		if b := back[0]; b.Filename != j.Filename || b.Net.Port != j.Port || b.NetTTL() != j.NetTTL() || b.Listen != j.Listen ||
			b.PingPong != j.PingPong || b.Interface != j.Interface || b.WindowSize != j.WindowSize {
			t.Errorf("%s read back differently:\n%s", j.Name, Format(j))
		}
	}
}

// What fio's net engine refuses at its start, refused with its reason;
// what stortest does not do with it, refused by name.
func TestParseFioNetErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		is       error
		msg      string
	}{
		{"random", "[a]\nioengine=net\nport=1\nhostname=h\nrw=randwrite\n", workload.ErrInvalid, "rw: network I/O can't be random"},
		{"no port", "[a]\nioengine=net\nhostname=h\nrw=write\n", workload.ErrInvalid, "port: ioengine=net with protocol=tcp needs a port"},
		{"port range", "[a]\nioengine=net\nport=70000\n", workload.ErrInvalid, "port"},
		{"port numjobs", "[a]\nioengine=net\nport=65535\nnumjobs=2\nhostname=h\nrw=write\n", workload.ErrInvalid, "port 65535 and numjobs=2 go past 65535"},
		{"unix port", "[a]\nioengine=net\nprotocol=unix\nport=1\nfilename=/s\nrw=write\n", workload.ErrInvalid, "port: not valid with protocol=unix"},
		{"unix path", "[a]\nioengine=net\nprotocol=unix\nrw=write\n", workload.ErrInvalid, "protocol=unix needs the socket's path"},
		{"bad protocol", "[a]\nioengine=net\nprotocol=sctp\n", workload.ErrInvalid, `protocol: unknown protocol "sctp"`},
		{"udp listen", "[a]\nioengine=net\nprotocol=udp\nport=1\nlisten\nrw=read\n", workload.ErrInvalid, "listen: only valid for TCP"},
		{"no host", "[a]\nioengine=net\nport=1\nrw=read\n", workload.ErrInvalid, "hostname: a job that connects needs hostname= (or filename=); did you forget to set listen?"},
		{"listen host", "[a]\nioengine=net\nport=1\nlisten\nhostname=h\nrw=read\n", workload.ErrInvalid, "a job that listens takes no host"},
		{"udp unicast group", "[a]\nioengine=net\nprotocol=udp\nport=1\nhostname=10.0.0.1\nrw=read\n", workload.ErrInvalid, "a job that listens takes no host"},
		{"interface", "[a]\nioengine=net\nprotocol=udp\nport=1\nhostname=239.0.0.1\ninterface=eth0\nrw=read\n", workload.ErrInvalid, `interface: "eth0" is not an IPv4 address`},
		{"other engine", "[a]\nioengine=psync\nport=8888\n", workload.ErrInvalid, "port: ioengine=psync does not take it (only net)"},
		{"other engine bare", "[a]\nlisten\n", workload.ErrInvalid, "listen: ioengine=psync does not take it (only net)"},
		{"both ways", "[a]\nioengine=net\nport=1\nhostname=h\nrw=rw\n", workload.ErrUnsupported, "rw=rw with ioengine=net (a job that both sends and receives) is not supported by stortest"},
		{"verify", "[a]\nioengine=net\nport=1\nhostname=h\nrw=write\nverify=md5\n", workload.ErrUnsupported, "verify with ioengine=net is not supported by stortest"},
		{"netsplice", "[a]\nioengine=netsplice\n", workload.ErrUnsupported, "fio ioengine netsplice is not supported by stortest"},
		{"trim", "[a]\nioengine=net\nport=1\nhostname=h\nrw=trim\n", workload.ErrInvalid, "sends (write) or receives (read), not rw=trim"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jobs, err := parseFile(strings.NewReader(tc.in), "job.fio")
			wantError(t, jobs, err, tc.is, tc.msg)
		})
	}
}
