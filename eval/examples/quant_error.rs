//! Which layer's rounding makes the quantised net differ from the float one.
//! `cargo run --release -p eval --example quant_error -- CHECKPOINT DATA.psv [N]`
use eval::train::data::{self, Filter, Holdout};
use eval::train::model::{quant_forward, Activations, FloatNet, QuantModel};
use std::path::PathBuf;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let t = eval::train::load_init(&PathBuf::from(&a[1])).expect("checkpoint");
    let n: u64 = a.get(3).map_or(200_000, |s| s.parse().unwrap());
    let filter = Filter { quiet_only: true, ..Filter::default() };
    let (_, val, _) =
        data::load(&[PathBuf::from(&a[2])], t.arch, &filter, Some(n), &Holdout { fraction: 0.5, seed: 1 }).unwrap();
    let f = t;
    let q = f.to_model();
    let dq = match &q {
        QuantModel::Knn(q) => FloatNet::dequantize(q),
        QuantModel::Yo(p) => FloatNet::dequantize_yo(p).expect("a HalfKP net"),
    };
    let mix = |l1: bool, l2: bool, l3: bool, out: bool, psqt: bool| {
        let mut m = f.clone();
        if l1 {
            m.l1_w = dq.l1_w.clone();
            m.factor = dq.factor.clone();
            m.l1_b = dq.l1_b.clone();
        }
        if l2 {
            m.l2_w = dq.l2_w.clone();
            m.l2_b = dq.l2_b.clone();
        }
        if l3 {
            m.l3_w = dq.l3_w.clone();
            m.l3_b = dq.l3_b.clone();
        }
        if out {
            m.out_w = dq.out_w.clone();
            m.out_b = dq.out_b.clone();
        }
        if psqt {
            m.psqt = dq.psqt.clone();
            m.psqt_factor = dq.psqt_factor.clone();
        }
        m
    };
    let scale = eval::nnue::OUTPUT_SCALE as f64;
    let mut act = Activations::default();
    let base: Vec<f64> = val.iter().map(|s| f.forward(s, &mut act) as f64 * scale).collect();
    let report = |name: &str, v: &[f64]| {
        let d: Vec<f64> = v.iter().zip(&base).map(|(a, b)| a - b).collect();
        let mean = d.iter().sum::<f64>() / d.len() as f64;
        let abs = d.iter().map(|x| x.abs()).sum::<f64>() / d.len() as f64;
        let max = d.iter().fold(0f64, |m, x| m.max(x.abs()));
        println!("{name:<28} mean {mean:8.2} |mean| {abs:7.2} max {max:8.1}");
    };
    println!("{} positions", val.len());
    for (name, m) in [
        ("first layer rounded", mix(true, false, false, false, false)),
        ("dense 1 rounded", mix(false, true, false, false, false)),
        ("dense 2 rounded", mix(false, false, true, false, false)),
        ("output rounded", mix(false, false, false, true, false)),
        ("psqt rounded", mix(false, false, false, false, true)),
        ("all weights rounded", mix(true, true, true, true, true)),
    ] {
        let v: Vec<f64> = val.iter().map(|s| m.forward(s, &mut act) as f64 * scale).collect();
        report(name, &v);
    }
    let v: Vec<f64> = val.iter().map(|s| f.arch.raw_to_eval(quant_forward(&q, s))).collect();
    report("integer inference", &v);
}
