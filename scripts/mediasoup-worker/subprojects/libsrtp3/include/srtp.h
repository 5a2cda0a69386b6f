// The libsrtp 3 calls mediasoup (>= 3.16) makes, on top of Debian 12's libsrtp 2.5.
// libsrtp 2 transforms a packet in place, in a buffer with room for what protecting adds;
// libsrtp 3 reads one buffer and writes another of a given capacity. Each call here copies the
// packet into the output buffer and transforms it there.
#ifndef SVC_SRTP3_ON_SRTP2_H
#define SVC_SRTP3_ON_SRTP2_H

#include <srtp2/srtp.h>

#ifdef __cplusplus
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>

// Status codes libsrtp 3 added after libsrtp 2's last one (srtp_err_status_pkt_idx_adv = 27).
constexpr srtp_err_status_t srtp_err_status_buffer_small = static_cast<srtp_err_status_t>(28);
constexpr srtp_err_status_t srtp_err_status_cryptex_err  = static_cast<srtp_err_status_t>(29);

namespace srtp3_on_srtp2
{
	using InPlaceTransform = srtp_err_status_t (*)(srtp_t, void*, int*);

	// Protecting RTP appends the auth tag (and MKI); RTCP also gets the 4-byte SRTCP index.
	constexpr size_t RtpGrowth  = SRTP_MAX_TRAILER_LEN;
	constexpr size_t RtcpGrowth = SRTP_MAX_TRAILER_LEN + 4;

	inline srtp_err_status_t CopyAndTransform(
	  InPlaceTransform transform,
	  srtp_t ctx,
	  const uint8_t* in,
	  size_t inLen,
	  uint8_t* out,
	  size_t* outLen,
	  size_t growth)
	{
		if (inLen > static_cast<size_t>(INT_MAX) - growth || *outLen < inLen + growth)
			return srtp_err_status_buffer_small;
		if (out != in)
			std::memmove(out, in, inLen);
		int len = static_cast<int>(inLen);
		const srtp_err_status_t status = transform(ctx, out, &len);
		if (status == srtp_err_status_ok)
			*outLen = static_cast<size_t>(len);
		return status;
	}
} // namespace srtp3_on_srtp2

// mediasoup configures no MKI, so the MKI index it passes (0) is ignored.
inline srtp_err_status_t srtp_protect(
  srtp_t ctx, const uint8_t* rtp, size_t rtpLen, uint8_t* srtp, size_t* srtpLen, size_t /*mkiIndex*/)
{
	return srtp3_on_srtp2::CopyAndTransform(
	  ::srtp_protect, ctx, rtp, rtpLen, srtp, srtpLen, srtp3_on_srtp2::RtpGrowth);
}

inline srtp_err_status_t srtp_protect_rtcp(
  srtp_t ctx, const uint8_t* rtcp, size_t rtcpLen, uint8_t* srtcp, size_t* srtcpLen, size_t /*mkiIndex*/)
{
	return srtp3_on_srtp2::CopyAndTransform(
	  ::srtp_protect_rtcp, ctx, rtcp, rtcpLen, srtcp, srtcpLen, srtp3_on_srtp2::RtcpGrowth);
}

inline srtp_err_status_t srtp_unprotect(
  srtp_t ctx, const uint8_t* srtp, size_t srtpLen, uint8_t* rtp, size_t* rtpLen)
{
	return srtp3_on_srtp2::CopyAndTransform(::srtp_unprotect, ctx, srtp, srtpLen, rtp, rtpLen, 0);
}

inline srtp_err_status_t srtp_unprotect_rtcp(
  srtp_t ctx, const uint8_t* srtcp, size_t srtcpLen, uint8_t* rtcp, size_t* rtcpLen)
{
	return srtp3_on_srtp2::CopyAndTransform(::srtp_unprotect_rtcp, ctx, srtcp, srtcpLen, rtcp, rtcpLen, 0);
}

// Renamed in libsrtp 3; both take the SSRC in network byte order.
inline srtp_err_status_t srtp_stream_remove(srtp_t session, uint32_t ssrc)
{
	return srtp_remove_stream(session, ssrc);
}
#endif // __cplusplus

#endif // SVC_SRTP3_ON_SRTP2_H
