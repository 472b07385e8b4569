# The Vivado flow of every Ferroce board build, sourced by the board's build.tcl after
# board.tcl: project, sources and constraints (ferroce_begin), the board's IP (ferroce_ip),
# then synthesis, implementation, the timing check and the bitstream (ferroce_implement).

proc ferroce_fail {message} {
    puts "ferroce: ERROR: $message"
    exit 1
}

# Parses the script's arguments (-jobs N), checks that every file of the build is there,
# creates the project in <here>/vivado and adds the sources and constraints.
proc ferroce_begin {here arguments} {
    global ferroce_board ferroce_part ferroce_top ferroce_sources ferroce_constraints
    set ::jobs 2
    foreach {option value} $arguments {
        switch -- $option {
            -jobs { set ::jobs $value }
            default { ferroce_fail "unknown option '$option' (build.tcl takes -jobs N)" }
        }
    }
    foreach file [concat $ferroce_sources $ferroce_constraints] {
        if {![file exists [file join $here $file]]} {
            ferroce_fail "$file is missing: run gen-verilog --board $ferroce_board again"
        }
    }
    puts "ferroce: $ferroce_board ($ferroce_part), top $ferroce_top, $::jobs jobs"
    create_project -force ferroce_$ferroce_board [file join $here vivado] -part $ferroce_part
    add_files -norecurse [lmap file $ferroce_sources {file join $here $file}]
    add_files -fileset constrs_1 -norecurse [lmap file $ferroce_constraints {file join $here $file}]
    set_property top $ferroce_top [current_fileset]
}

# Creates an AMD IP core under the module name the board top instantiates.
proc ferroce_ip {name module config} {
    create_ip -name $name -vendor xilinx.com -library ip -module_name $module
    set_property -dict $config [get_ips $module]
}

# Runs a run (to a step of an implementation run) and stops the build if it did not complete.
proc ferroce_run {run args} {
    launch_runs $run {*}$args -jobs $::jobs
    wait_on_run $run
    set status [get_property STATUS [get_runs $run]]
    if {![string match {*Complete!} $status]} {
        ferroce_fail "$run did not complete: $status (log in [get_property DIRECTORY [get_runs $run]])"
    }
}

# Synthesis and implementation; the reports; stops when a setup or hold slack is negative;
# otherwise writes <here>/ferroce_<board>.bit.
proc ferroce_implement {here} {
    global ferroce_board
    update_compile_order -fileset sources_1
    ferroce_run synth_1
    ferroce_run impl_1 -to_step route_design
    open_run impl_1
    report_timing_summary -file [file join $here timing_$ferroce_board.rpt]
    report_utilization -file [file join $here utilization_$ferroce_board.rpt]
    set setup_slack [get_property STATS.WNS [get_runs impl_1]]
    set hold_slack [get_property STATS.WHS [get_runs impl_1]]
    if {$setup_slack < 0 || $hold_slack < 0} {
        ferroce_fail "timing not met: worst setup slack $setup_slack ns, worst hold slack $hold_slack ns (timing_$ferroce_board.rpt)"
    }
    puts "ferroce: timing met (worst setup slack $setup_slack ns, hold $hold_slack ns)"
    write_bitstream -force [file join $here ferroce_$ferroce_board.bit]
    puts "ferroce: wrote [file join $here ferroce_$ferroce_board.bit]"
}
