# Vivado's Tcl commands that the boards' build.tcl uses, as stubs for tclsh: each records its
# call in the file named by the environment variable FERROCE_STUB_LOG (one line per call: the
# command and its arguments as a Tcl list) and returns what the script needs to go on. A
# command that is not stubbed here is an error, so the test knows every command a script uses.
#
# Usage: tclsh vivado_stub.tcl path/to/build.tcl [script arguments]
# FERROCE_STUB_WNS / FERROCE_STUB_WHS: the worst slacks the implementation run reports (ns);
# FERROCE_STUB_FAIL: a run that ends in error; FERROCE_STUB_BOARD_PARTS: the board parts
# installed (default: the boards' parts).

set stub_log [open $env(FERROCE_STUB_LOG) w]
proc stub_record {args} {
    global stub_log
    puts $stub_log $args
    flush $stub_log
}
proc stub_env {name default} {
    global env
    if {[info exists env($name)]} { return $env($name) }
    return $default
}

foreach command {
    set_param set_msg_config create_project set_property add_files update_compile_order
    generate_target export_ip_user_files reset_run wait_on_run open_run
    report_timing_summary report_utilization write_bitstream close_project
    create_bd_design apply_bd_automation create_bd_port create_bd_intf_port connect_bd_net
    connect_bd_intf_net assign_bd_address validate_bd_design save_bd_design
} {
    proc $command {args} "stub_record $command {*}\$args; return {}"
}
set stub_ips {}
proc create_ip {args} {
    global stub_ips
    stub_record create_ip {*}$args
    set i [lsearch -exact $args -module_name]
    lappend stub_ips [lindex $args [expr {$i + 1}]]
    return [lindex $args [expr {$i + 1}]]
}
proc get_ips {args} {
    global stub_ips
    if {[llength $args] == 0} { return $stub_ips }
    return [lindex $args end]
}
# the step each run was launched to, for its STATUS
array set stub_steps {}
proc launch_runs {args} {
    global stub_steps
    stub_record launch_runs {*}$args
    set run [lindex $args 0]
    set i [lsearch -exact $args -to_step]
    set stub_steps($run) [expr {$i >= 0 ? [lindex $args [expr {$i + 1}]] : [string map {synth_1 synth_design impl_1 write_bitstream} $run]}]
}
proc get_runs {args} { return [lindex $args end] }
proc get_files {args} { return [lindex $args end] }
proc current_project {args} { return ferroce }
proc current_fileset {args} { return sources_1 }
proc get_filesets {args} { return [lindex $args end] }
foreach command {
    get_bd_cells get_bd_pins get_bd_intf_pins get_bd_ports get_bd_intf_ports get_bd_addr_spaces
    get_bd_addr_segs
} {
    proc $command {args} { return [lindex $args end] }
}
proc create_bd_cell {args} {
    stub_record create_bd_cell {*}$args
    return [lindex $args end]
}
proc get_board_parts {args} {
    set installed [stub_env FERROCE_STUB_BOARD_PARTS {xilinx.com:zcu102:part0:3.4 xilinx.com:au280:part0:1.1}]
    return [lsearch -all -inline -glob $installed [lindex $args end]]
}
proc get_property {name object} {
    stub_record get_property $name $object
    switch -- $name {
        STATUS {
            global stub_steps
            if {[stub_env FERROCE_STUB_FAIL {}] eq $object} { return "$stub_steps($object) ERROR" }
            return "$stub_steps($object) Complete!"
        }
        STATS.WNS { return [stub_env FERROCE_STUB_WNS 0.125] }
        STATS.WHS { return [stub_env FERROCE_STUB_WHS 0.010] }
        STATS.TNS { return 0.000 }
        DIRECTORY { return [file join [pwd] stub_run_$object] }
        default { error "get_property $name: not stubbed" }
    }
}
rename exit stub_real_exit
proc exit {{code 0}} {
    stub_record exit $code
    stub_real_exit $code
}

set argv0 [lindex $argv 0]
set argv [lrange $argv 1 end]
set argc [llength $argv]
source $argv0
stub_record end
