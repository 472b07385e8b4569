//! The engine's MAC on a UDP socket (`ferroce_sim::wire_bridge`): frames cross as datagrams
//! both ways, bad datagrams are counted and dropped, the register file answers meanwhile.

use ferroce_sim::engine_rtl::{EngineHost, ENGINE_W512};
use ferroce_sim::models::host::craft::HostFrameGen;
use ferroce_sim::models::host::{answer_at, reply_capacity, HostAddress, HostVerdict};
use ferroce_sim::wire_bridge::{WireBridge, LARGEST_FRAME};
use std::net::{Ipv4Addr, UdpSocket};
use std::time::Duration;

#[test]
fn arp_and_ping_cross_the_udp_wire_and_bad_datagrams_are_dropped() {
    let peer = UdpSocket::bind("127.0.0.1:0").unwrap();
    peer.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut bridge = WireBridge::new(&ENGINE_W512, "127.0.0.1:0".parse().unwrap(), peer.local_addr().unwrap()).unwrap();
    bridge.capture();
    let address = HostAddress::new([0x02, 0x00, 0x5E, 0x00, 0x00, 0x0B], Ipv4Addr::new(10, 0, 0, 1));
    bridge.set_local_address(address.mac, address.ipv4).unwrap();
    let to = bridge.local_addr().unwrap();
    let mut g = HostFrameGen::new(5);
    // a frame as Linux puts it on a virtual NIC: 42 bytes, no padding, no FCS
    let arp = g.arp_request(0, address.ipv4);
    let ping = g.echo_request(0, address.ipv4, 56);
    peer.send_to(&[0u8; 13], to).unwrap();
    peer.send_to(&vec![0u8; LARGEST_FRAME + 1], to).unwrap();
    peer.send_to(&arp, to).unwrap();
    let capacity = reply_capacity(ENGINE_W512.config.data_width as usize / 8);
    let mut buffer = [0u8; 2048];
    // one request at a time, as Linux asks (the host path has one reply buffer: a request that
    // finds it taken goes to the host)
    for (k, request) in [&arp, &ping].into_iter().enumerate() {
        if k > 0 {
            peer.send_to(request, to).unwrap();
        }
        bridge
            .run_until("a reply", Duration::from_secs(30), |b| b.counts.frames_out > k as u64)
            .unwrap();
        let n = peer.recv(&mut buffer).unwrap();
        let HostVerdict::Reply { frame, .. } = answer_at(request, &address, capacity) else {
            panic!("the model does not answer")
        };
        assert_eq!(buffer[..n], frame[..], "one datagram per reply frame");
    }
    assert_eq!(bridge.counts.dropped_short, 1);
    assert_eq!(bridge.counts.dropped_long, 1);
    assert_eq!(bridge.counts.frames_in, 2);
    assert_eq!(bridge.read("host_arp_replies", 0).unwrap(), 1);
    assert_eq!(bridge.read("host_echo_replies", 0).unwrap(), 1);
    assert_eq!(
        bridge.crossed.as_ref().map(Vec::len),
        Some(4),
        "both requests and both replies captured"
    );
}
