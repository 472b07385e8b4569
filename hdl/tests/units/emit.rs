#[test]
fn renames_top_and_children_only() {
    let src = "module top(clock);\nmodule top$core(a);\n top$core core(.a(top_x));\n stop topx";
    let out = ferroce_hdl::emit::rename(src, "ferroce_x");
    assert_eq!(
        out,
        "module ferroce_x(clock);\nmodule ferroce_x__core(a);\n ferroce_x__core core(.a(top_x));\n stop topx"
    );
}
