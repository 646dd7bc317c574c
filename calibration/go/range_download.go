// A stand-in for the AWS SDK for Go's S3 downloader (feature/s3/manager, download.go at
// aws/aws-sdk-go-v2@01df8b2): the first part's ranged GET alone, then the other parts on `concurrency` workers, each
// part written at its offset into the file OUT, or discarded where OUT is "-" (as s3bench's and s3-benchmark's Go
// clients discard what they read), over Go's net/http and crypto/tls, the SDK's own transport (without its request
// signing). Reads one object `repeats` times after an untimed read and prints the rate and the cores the process
// used (user + system CPU over wall time). Driven by calibration/python/storage_client_cores.py:
//
//	go run range_download.go URL CONCURRENCY PART_MIB OUT REPEATS
package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

var client = &http.Client{Transport: &http.Transport{
	TLSClientConfig:     &tls.Config{InsecureSkipVerify: true},
	MaxIdleConnsPerHost: 64,
}}

// offsetWriter writes at increasing offsets of a file, as the SDK's downloader does (io.WriterAt).
type offsetWriter struct {
	file *os.File
	at   int64
}

func (w *offsetWriter) Write(p []byte) (int, error) {
	n, err := w.file.WriteAt(p, w.at)
	w.at += int64(n)
	return n, err
}

// getRange writes bytes [start, end] of url at their offset in out (nil: discards them); returns the object's size
// (Content-Range).
func getRange(url string, start, end int64, out *os.File) int64 {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", start, end))
	resp, err := client.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var sink io.Writer = io.Discard
	if out != nil {
		sink = &offsetWriter{out, start}
	}
	if _, err := io.Copy(sink, resp.Body); err != nil {
		panic(err)
	}
	total, _ := strconv.ParseInt(resp.Header.Get("Content-Range")[strings.LastIndex(resp.Header.Get("Content-Range"), "/")+1:], 10, 64)
	return total
}

func download(url string, concurrency int, part int64, path string) int64 {
	var out *os.File
	if path != "-" {
		var err error
		if out, err = os.Create(path); err != nil {
			panic(err)
		}
		defer out.Close()
	}
	size := getRange(url, 0, part-1, out)
	parts := make(chan int64)
	var wg sync.WaitGroup
	for w := 0; w < concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for start := range parts {
				end := start + part - 1
				if end >= size {
					end = size - 1
				}
				getRange(url, start, end, out)
			}
		}()
	}
	for start := part; start < size; start += part {
		parts <- start
	}
	close(parts)
	wg.Wait()
	return size
}

func cpuSeconds() float64 {
	var u syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return float64(u.Utime.Nano()+u.Stime.Nano()) / 1e9
}

func main() {
	url := os.Args[1]
	concurrency, _ := strconv.Atoi(os.Args[2])
	partMiB, _ := strconv.ParseInt(os.Args[3], 10, 64)
	path := os.Args[4]
	repeats, _ := strconv.Atoi(os.Args[5])
	download(url, concurrency, partMiB<<20, path) // untimed: connections, page cache
	cpu0, start, n := cpuSeconds(), time.Now(), int64(0)
	for i := 0; i < repeats; i++ {
		n += download(url, concurrency, partMiB<<20, path)
	}
	wall := time.Since(start).Seconds()
	fmt.Printf("rate %.0f B/s cores %.3f\n", float64(n)/wall, (cpuSeconds()-cpu0)/wall)
}
