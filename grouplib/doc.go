// Package grouplib is the group library: one library across the devices of
// a trusted group. Each device publishes its own catalog (signed heads in
// the group's op log), keeps the others' verified against them and their
// union, serves its own files to the members, and fetches and caches (with
// a size limit and an upload rate) the tracks this device lacks, so any
// device plays any track a member holds. Library is its entry point.
package grouplib
