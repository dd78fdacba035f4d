use engine::*;
#[test]
fn quick() {
    let t = std::time::Instant::now();
    attacks::init();
    eprintln!("init {:?}", t.elapsed());
    for (sfen, counts) in [
        (START_SFEN, vec![30u64, 900, 25470, 719731]),
        ("l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1", vec![207, 28684, 4809015]),
        ("R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1", vec![593, 105677]),
        ("7lk/9/8S/9/9/9/9/7L1/8K b P 1", vec![85, 639, 10786, 167089]),
        ("7k1/9/9/9/l2s5/6snb/9/9/8K b 2G 1", vec![76, 2606, 201658]),
        ("8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124", vec![178, 18041, 2552846]),
        ("9/9/9/3k5/9/5K3/9/9/9 b RB2G2S2N2L9Prb2g2s2n2l9p 1", vec![524, 248257]),
        ("l7l/3s5/prnp2kp1/2p1Gppnp/1P7/PnPP1P3/3BP2PP/1S1G5/LN1K1G1+rL b SBG3ps 91", vec![180, 15217, 2067680]),
    ] {
        let mut pos = Position::from_sfen(sfen).unwrap();
        for (d, &c) in counts.iter().enumerate() {
            assert_eq!(perft(&mut pos, d as u32 + 1), c, "{sfen} depth {}", d + 1);
        }
    }
}
