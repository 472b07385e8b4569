//! The segmenter: a transfer cut into blocks, one per scheduler decision, and the part of a
//! message each block carries.
//!
//! - **WRITE**: blocks aligned to the remote (destination) address: a block ends at the next
//!   multiple of the block size BS or at the end of the transfer, so its length is
//!   `min(remaining, BS − remote % BS)` where `remote` is the block's remote address. Each block is
//!   one RDMA WRITE message with its own RETH (the block's remote address, the QP's R_Key, the
//!   block's length).
//! - **SEND**: one message, cut into groups of BS bytes counted from the message start; the
//!   groups are scheduled like blocks. BS ≥ 4096 ≥ PMTU, so a group boundary is a packet
//!   boundary.
//! - **WRITE as one message** (`write-message`, `write-imm-message`): cut into groups as a
//!   SEND; WRITE opcodes, the RETH (the post's remote address and whole length) on the
//!   message's first packet, the immediate on its last.
//! - **READ response** (the responder's answer to a peer's RDMA READ request, on the
//!   responder channel): one message, cut into groups like a SEND.
//! - **Zero length**: one block of 0 bytes.
//!
//! Addresses wrap modulo 2^64.

use super::record::Post;
use crate::contracts::tx::PostOp;
use crate::responder::ReadResponse;
use crate::wire::RethRepr;

/// A transfer in the transfer table: the post and how far it has been cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transfer {
    /// The accepted post.
    pub post: Post,
    /// Its operation.
    pub op: PostOp,
    /// Bytes already cut into blocks.
    pub done: u64,
    /// Blocks already cut (the index of the next block).
    pub blocks: u32,
    /// The READ response it sends (on the responder channel; `op` is then SEND: it is cut
    /// into groups like a SEND message).
    pub read_response: Option<ReadResponse>,
}

/// One block of a transfer (a WRITE message, or a group of a SEND message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// Index in the transfer, from 0.
    pub index: u32,
    /// Offset of its first byte in the transfer.
    pub offset: u64,
    /// Bytes (0 only for a zero-length transfer).
    pub len: u64,
    /// The transfer's last block.
    pub last: bool,
}

/// The part of a message one block carries: what the packetizer needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessagePart {
    /// RDMA WRITE opcodes (else SEND).
    pub write: bool,
    /// RDMA READ: one request for the part (its RETH), its response to `local_addr`.
    pub read: bool,
    /// Length of the whole message.
    pub message_len: u64,
    /// Offset of the part in the message (a multiple of the block size, so of the PMTU).
    pub start: u64,
    /// Bytes of the part.
    pub len: u64,
    /// Local address of the part's first byte.
    pub local_addr: u64,
    /// The message's RETH (WRITE), on its first packet (`None` on a part that does not start
    /// the message).
    pub reth: Option<RethRepr>,
    /// The message's immediate, on its last packet.
    pub immediate: Option<u32>,
    /// The solicited-event bit of the message's last packet.
    pub solicited: bool,
}

impl Transfer {
    /// A transfer of an accepted post, nothing cut yet.
    pub fn new(post: Post, op: PostOp) -> Transfer {
        Transfer {
            post,
            op,
            done: 0,
            blocks: 0,
            read_response: None,
        }
    }

    /// The transfer of a READ response on `channel` in `queue`: its bytes from its VA.
    pub fn of_read_response(response: ReadResponse, channel: u16, queue: u8) -> Transfer {
        let post = Post {
            channel,
            queue,
            op: PostOp::Send.code(),
            qp: response.qp,
            local_addr: response.va,
            length: response.length,
            ..Post::default()
        };
        Transfer {
            read_response: Some(response),
            ..Transfer::new(post, PostOp::Send)
        }
    }

    /// Bytes not cut yet.
    pub fn remaining(&self) -> u64 {
        u64::from(self.post.length) - self.done
    }

    /// The next block with blocks of `1 << block_log2` bytes (the transfer is not changed).
    pub fn next_block(&self, block_log2: u32) -> Block {
        let block_size = 1u64 << block_log2;
        let remaining = self.remaining();
        let len = if self.op.by_remote_blocks() {
            let remote = self.post.remote_addr.wrapping_add(self.done);
            remaining.min(block_size - (remote & (block_size - 1)))
        } else {
            remaining.min(block_size)
        };
        Block {
            index: self.blocks,
            offset: self.done,
            len,
            last: len == remaining,
        }
    }

    /// Marks `block` cut.
    pub fn advance(&mut self, block: &Block) {
        debug_assert_eq!((block.index, block.offset), (self.blocks, self.done));
        self.done += block.len;
        self.blocks += 1;
    }

    /// The message part `block` carries; `rkey` is the QP's R_Key.
    ///
    /// WRITE with immediate: by default only the last block's message carries the post's
    /// immediate; with `imm_every_block` every block's message carries the post's immediate
    /// plus the block index (mod 2^32), the last block's too. The solicited bit goes on a
    /// message's last packet when the post asks for it and the message is a SEND or carries an
    /// immediate.
    pub fn message_part(&self, block: &Block, rkey: u32) -> MessagePart {
        let post = &self.post;
        let local_addr = post.local_addr.wrapping_add(block.offset);
        if self.op.by_remote_blocks() {
            let immediate = match self.op {
                PostOp::WriteImm if post.imm_every_block => Some(post.immediate.wrapping_add(block.index)),
                PostOp::WriteImm if block.last => Some(post.immediate),
                _ => None,
            };
            MessagePart {
                write: self.op.is_write(),
                read: self.op == PostOp::Read,
                message_len: block.len,
                start: 0,
                len: block.len,
                local_addr,
                reth: Some(RethRepr {
                    va: post.remote_addr.wrapping_add(block.offset),
                    r_key: rkey,
                    dma_len: block.len as u32,
                }),
                immediate,
                solicited: post.solicited && immediate.is_some(),
            }
        } else {
            let write = self.op.is_write();
            MessagePart {
                write,
                read: false,
                message_len: u64::from(post.length),
                start: block.offset,
                len: block.len,
                local_addr,
                reth: (write && block.index == 0).then_some(RethRepr {
                    va: post.remote_addr,
                    r_key: rkey,
                    dma_len: post.length,
                }),
                immediate: self.op.has_immediate().then_some(post.immediate),
                solicited: post.solicited && (!write || self.op.has_immediate()),
            }
        }
    }
}
